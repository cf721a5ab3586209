import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { ticketHash, ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { createTestTable } from '../support/service/dynamodb.ts';

const NEW = { kind: 'email_verification' as const, userId: 'user-1', tenantId: 'tenant-1', ttlSeconds: 3600, email: 'ada@example.com' };

describe('tickets repository (docs/design.md §3.7: ticket use is one conditional write)', () => {
  it('stores only the SHA-256 of a 256-bit value, with kind, user, tenant, expiry and the DynamoDB ttl', async () => {
    const { db, tableName } = await createTestTable('tickets');
    const now = new Date('2030-01-01T00:00:00.000Z');
    const repo = ticketsRepository(db, tableName, () => now);
    const { value, ticket } = await repo.create({ ...NEW, clientId: 'client-1', resultUrl: 'https://app.example.com/verified' });
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.ticket(ticketHash(value)) }));
    expect(Item).toEqual({
      PK: `TICKET#${ticketHash(value)}`,
      SK: 'TICKET',
      type: 'Ticket',
      schema_version: 1,
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/), // docs/contract.md §6: the 201 body's `id`
      kind: 'email_verification',
      user_id: 'user-1',
      tenant_id: 'tenant-1',
      email: 'ada@example.com',
      client_id: 'client-1',
      result_url: 'https://app.example.com/verified',
      created_at: '2030-01-01T00:00:00.000Z',
      expires_at: '2030-01-01T01:00:00.000Z',
      ttl: Date.parse('2030-01-01T01:00:00Z') / 1000,
    });
    expect(ticket).toEqual({
      ...Object.fromEntries(Object.entries(Item!).filter(([k]) => !['PK', 'SK', 'type', 'schema_version', 'ttl'].includes(k))),
    });
    // The value itself is nowhere in the table.
    const { Items } = await db.send(new ScanCommand({ TableName: tableName }));
    expect(JSON.stringify(Items)).not.toContain(value);
  });

  it('find reads without consuming; redeem consumes once; a second redeem is "used"', async () => {
    const { db, tableName } = await createTestTable('tickets-once');
    const repo = ticketsRepository(db, tableName, () => new Date());
    const { value } = await repo.create(NEW);
    expect((await repo.find(value)).state).toBe('valid');
    expect((await repo.find(value)).state).toBe('valid');
    const first = await repo.redeem(value, 'email_verification');
    expect(first.state).toBe('valid');
    expect(first.state === 'valid' && first.ticket.used_at).toMatch(/^\d{4}-/);
    expect((await repo.redeem(value, 'email_verification')).state).toBe('used');
    expect((await repo.find(value)).state).toBe('used');
  });

  it('20 parallel redemptions of one ticket: exactly one succeeds, the rest see "used"', async () => {
    const { db, tableName } = await createTestTable('tickets-race');
    const repo = ticketsRepository(db, tableName, () => new Date());
    const { value } = await repo.create(NEW);
    const results = await Promise.all(Array.from({ length: 20 }, () => repo.redeem(value, 'email_verification')));
    expect(results.filter((r) => r.state === 'valid')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'used')).toHaveLength(19);
  });

  it('an expired ticket is refused before DynamoDB sweeps it (its item still exists)', async () => {
    const { db, tableName } = await createTestTable('tickets-expiry');
    let now = new Date('2030-01-01T00:00:00.000Z');
    const repo = ticketsRepository(db, tableName, () => now);
    const { value } = await repo.create({ ...NEW, ttlSeconds: 60 });
    now = new Date('2030-01-01T00:00:59.999Z');
    expect((await repo.find(value)).state).toBe('valid');
    now = new Date('2030-01-01T00:01:00.000Z');
    expect((await repo.find(value)).state).toBe('expired');
    expect((await repo.redeem(value, 'email_verification')).state).toBe('expired');
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.ticket(ticketHash(value)) }));
    expect(Item?.used_at).toBeUndefined(); // the refused redemption wrote nothing
  });

  it('unknown and malformed values are unknown (a malformed one costs no read); a ticket of another kind is not redeemed', async () => {
    const { db, tableName } = await createTestTable('tickets-unknown');
    const repo = ticketsRepository(db, tableName, () => new Date());
    expect((await repo.find('A'.repeat(43))).state).toBe('unknown');
    expect((await repo.redeem('A'.repeat(43), 'email_verification')).state).toBe('unknown');
    for (const bad of ['', 'short', 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`]) {
      expect((await repo.find(bad)).state).toBe('unknown');
    }
    const { value } = await repo.create({ ...NEW, kind: 'password_change' });
    expect((await repo.redeem(value, 'email_verification')).state).toBe('unknown');
    expect((await repo.find(value)).state).toBe('valid'); // still usable for its own purpose
  });

  it('result_url must be https or loopback http: anything else is refused at creation (no open redirect)', async () => {
    const { db, tableName } = await createTestTable('tickets-result-url');
    const repo = ticketsRepository(db, tableName, () => new Date());
    for (const ok of ['https://app.example.com/done?x=1', 'http://127.0.0.1:8080/cb', 'http://[::1]/cb', 'http://localhost:3000/']) {
      expect((await repo.create({ ...NEW, resultUrl: ok })).ticket.result_url).toBe(ok);
    }
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'http://evil.example/',
      '//evil.example/',
      '/relative',
      'https://app.example.com@evil.example/',
      'https://app.example.com/#frag',
      'https://evil.example\\@app.example.com/',
      'http://127.0.0.1.evil.example/',
      'ftp://app.example.com/',
      `https://app.example.com/${'a'.repeat(2048)}`,
    ]) {
      const err = await repo.create({ ...NEW, resultUrl: bad }).catch((e: unknown) => e);
      expect(isAppError(err) && err.status, bad).toBe(400);
      expect(isAppError(err) && err.message, bad).toMatch(/^body\.result_url: /);
    }
  });
});
