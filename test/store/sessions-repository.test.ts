import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { SESSION_LIFETIME_SECONDS, sessionHash, sessionsRepository } from '#shared/store/sessions/sessions-repository.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { putUser } from '../support/store/user-items.ts';

let table: TestTable;
let clock = new Date('2030-01-01T00:00:00.000Z');
const now = () => clock;
const repo = () => sessionsRepository(table.db, table.tableName, now);
const tableRuntime = () => ({ db: table.db, config: { tableName: table.tableName }, now }) as unknown as Runtime;
const stored = async (value: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.session(sessionHash(value)), ConsistentRead: true }))).Item;
const setUser = (userId: string, expression: string, values: Record<string, unknown>) =>
  table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.user(userId),
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
    }),
  );

beforeAll(async () => {
  table = await createTestTable('sessions');
});

describe('sessions repository (docs/browser-flows.md "Sessions")', () => {
  it('stores only the SHA-256 of a 256-bit cookie value, with the pinned fields, GSI2 and ttl (24 h absolute)', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const user = await putUser(tableRuntime());
    const { value, session } = await repo().createSession({
      userId: user.id,
      tenantId: user.tenant_id,
      authTime: 1_893_456_000,
      amr: ['pwd', 'otp'],
    });
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await stored(value)).toEqual({
      PK: `SESSION#${sessionHash(value)}`,
      SK: 'SESSION',
      type: 'Session',
      schema_version: 1,
      GSI2PK: `USER#${user.id}#SESSIONS`,
      GSI2SK: session.id,
      id: session.id,
      user_id: user.id,
      tenant_id: user.tenant_id,
      auth_time: 1_893_456_000,
      amr: ['pwd', 'otp'],
      created_at: '2030-01-01T00:00:00.000Z',
      expires_at: '2030-01-02T00:00:00.000Z',
      ttl: Date.parse('2030-01-02T00:00:00.000Z') / 1000,
    });
    expect(SESSION_LIFETIME_SECONDS).toBe(86_400);
    const { Items } = await table.db.send(new ScanCommand({ TableName: table.tableName }));
    expect(JSON.stringify(Items)).not.toContain(value);
    expect(await repo().findSession(value)).toEqual(session);
  });

  it('findSession: undefined for a malformed or unknown value, after expiry (no sliding), and once ended', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const user = await putUser(tableRuntime());
    const { value } = await repo().createSession({ userId: user.id, tenantId: user.tenant_id, authTime: 1, amr: ['pwd'] });
    expect(await repo().findSession('short')).toBeUndefined();
    expect(await repo().findSession('A'.repeat(43))).toBeUndefined();
    clock = new Date('2030-01-01T23:59:59.000Z');
    expect(await repo().findSession(value)).toMatchObject({ user_id: user.id, expires_at: '2030-01-02T00:00:00.000Z' });
    clock = new Date('2030-01-02T00:00:00.000Z');
    expect(await repo().findSession(value)).toBeUndefined();

    clock = new Date('2030-01-01T01:00:00.000Z');
    await repo().endSession(value);
    expect(await repo().findSession(value)).toBeUndefined();
    expect((await stored(value))?.ended_at).toBe('2030-01-01T01:00:00.000Z');
    await repo().endSession(value); // idempotent: the first end time stays
    await repo().endSession('not-a-cookie');
    expect((await stored(value))?.ended_at).toBe('2030-01-01T01:00:00.000Z');
  });

  it('findSession: undefined when the user is blocked, deleted, in another tenant, or had tokens revoked after the login', async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const blocked = await putUser(tableRuntime());
    const a = await repo().createSession({ userId: blocked.id, tenantId: blocked.tenant_id, authTime: 1, amr: ['pwd'] });
    await setUser(blocked.id, 'SET blocked = :t', { ':t': true });
    expect(await repo().findSession(a.value)).toBeUndefined();

    const other = await putUser(tableRuntime());
    const b = await repo().createSession({ userId: other.id, tenantId: 'another-tenant', authTime: 1, amr: ['pwd'] });
    expect(await repo().findSession(b.value)).toBeUndefined();
    const c = await repo().createSession({ userId: 'no-such-user', tenantId: other.tenant_id, authTime: 1, amr: ['pwd'] });
    expect(await repo().findSession(c.value)).toBeUndefined();

    const changed = await putUser(tableRuntime());
    const d = await repo().createSession({ userId: changed.id, tenantId: changed.tenant_id, authTime: 1, amr: ['pwd'] });
    await setUser(changed.id, 'SET tokens_revoked_at = :at', { ':at': '2029-12-31T00:00:00.000Z' });
    expect(await repo().findSession(d.value)).toMatchObject({ user_id: changed.id }); // revoked before this login
    await setUser(changed.id, 'SET tokens_revoked_at = :at', { ':at': '2030-01-01T00:00:01.000Z' });
    expect(await repo().findSession(d.value)).toBeUndefined();
  });

  it("endUserSessions ends every live session of that user (GSI2) and no one else's", async () => {
    clock = new Date('2030-01-01T00:00:00.000Z');
    const user = await putUser(tableRuntime());
    const bystander = await putUser(tableRuntime());
    const mine = await Promise.all(
      Array.from({ length: 3 }, () => repo().createSession({ userId: user.id, tenantId: user.tenant_id, authTime: 1, amr: ['pwd'] })),
    );
    const theirs = await repo().createSession({ userId: bystander.id, tenantId: bystander.tenant_id, authTime: 1, amr: ['pwd'] });
    await repo().endSession(mine[0]!.value);
    expect(await repo().endUserSessions(user.id)).toBe(2);
    for (const s of mine) {
      expect(await repo().findSession(s.value)).toBeUndefined();
      expect((await stored(s.value))?.ended_at).toBe('2030-01-01T00:00:00.000Z');
    }
    expect(await repo().findSession(theirs.value)).toMatchObject({ user_id: bystander.id });
    expect(await repo().endUserSessions(user.id)).toBe(0);
  });
});
