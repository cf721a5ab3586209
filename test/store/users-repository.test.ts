import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { userMarker } from '#shared/store/users/user-markers.ts';
import { ACTOR, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('users');
});

const OTHER_TENANT = '019b0000-0000-7000-8000-00000000d001';
let n = 0;
const fresh = () => `u${++n}-${Math.random().toString(36).slice(2, 8)}`;
const raw = async (key: { PK: string; SK: string }) =>
  (await f.db.send(new GetCommand({ TableName: f.tableName, Key: key, ConsistentRead: true }))).Item;

describe('users repository', () => {
  it('creates with the defaults, its markers and the counter; finds it by id and by each login', async () => {
    const before = await f.users.count(f.tenantId);
    const name = fresh();
    const u = await f.users.create(
      {
        tenant_id: f.tenantId,
        email: `${name}@Example.COM`,
        username: `${name}X`,
        phone_number: '+15551230001',
        password_hash: '$argon2id$x',
      },
      ACTOR,
    );
    expect(u).toMatchObject({
      tenant_id: f.tenantId,
      email: `${name}@Example.COM`,
      email_verified: false,
      phone_verified: false,
      blocked: false,
      last_login: null,
      logins_count: 0,
      user_metadata: {},
      app_metadata: [],
      aggregations: { roles: 0, groups: 0, permissions: 0 },
      version: 1,
      created_by: ACTOR,
      created_at: '2026-01-15T10:00:00.000Z',
    });
    expect(await f.users.get(u.id)).toEqual(u);
    expect(await f.users.count(f.tenantId)).toBe(before + 1);
    expect(await f.users.findIdByLogin(f.tenantId, 'email', `${name}@example.com`)).toBe(u.id);
    expect(await f.users.findIdByLogin(f.tenantId, 'email', `${name.toUpperCase()}@EXAMPLE.com`)).toBe(u.id);
    expect(await f.users.findIdByLogin(f.tenantId, 'username', `${name}x`)).toBe(u.id);
    expect(await f.users.findIdByLogin(f.tenantId, 'phone_number', '+15551230001')).toBe(u.id);
    expect(await f.users.findIdByLogin(OTHER_TENANT, 'email', `${name}@example.com`)).toBeUndefined();
    // The marker key is the one the plan pins (keys.marker + userMarkerValue).
    expect(await raw(keys.marker('USER_EMAIL', f.tenantId, `${name}@example.com`))).toMatchObject({ target_id: u.id });
  });

  it('email (any case), username (any case) and phone are unique per tenant: 409 naming the field, nothing written', async () => {
    const name = fresh();
    await f.users.create({ tenant_id: f.tenantId, email: `${name}@example.com`, username: name, phone_number: '+15551230002' }, ACTOR);
    const count = await f.users.count(f.tenantId);
    await expect(f.users.create({ tenant_id: f.tenantId, email: `${name.toUpperCase()}@EXAMPLE.COM` }, ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('body.email'),
    });
    await expect(
      f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com`, username: name.toUpperCase() }, ACTOR),
    ).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('body.username'),
    });
    const other = `${fresh()}@example.com`;
    await expect(f.users.create({ tenant_id: f.tenantId, email: other, phone_number: '+15551230002' }, ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('body.phone_number'),
    });
    // The failed creates left no marker of their other values, and the count is unchanged.
    expect(await f.users.findIdByLogin(f.tenantId, 'email', other)).toBeUndefined();
    expect(await f.users.count(f.tenantId)).toBe(count);
    // Another tenant may hold the same values.
    const there = await f.users.create(
      { tenant_id: OTHER_TENANT, email: `${name}@example.com`, username: name, phone_number: '+15551230002' },
      ACTOR,
    );
    expect(await f.users.findIdByLogin(OTHER_TENANT, 'email', `${name}@example.com`)).toBe(there.id);
  });

  it('20 concurrent creates of one email: exactly one wins', async () => {
    const email = `${fresh()}@example.com`;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => f.users.create({ tenant_id: f.tenantId, email: i % 2 ? email : email.toUpperCase() }, ACTOR)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 409 });
    expect(await f.users.findIdByLogin(f.tenantId, 'email', email)).toBe((won[0] as PromiseFulfilledResult<{ id: string }>).value.id);
  });

  it('update merges, moves markers in the same write, frees the old values, and keeps case-only changes on one marker', async () => {
    const name = fresh();
    const u = await f.users.create(
      { tenant_id: f.tenantId, email: `${name}@example.com`, username: name, address: { country: 'NL', locality: 'Delft' } },
      ACTOR,
    );
    const moved = await f.users.update(
      u.id,
      { email: `${name}-2@example.com`, address: { locality: 'Leiden' }, phone_number: '+15551239999' },
      ACTOR,
    );
    expect(moved).toMatchObject({
      email: `${name}-2@example.com`,
      username: name,
      address: { country: 'NL', locality: 'Leiden' },
      version: 2,
    });
    expect(await f.users.findIdByLogin(f.tenantId, 'email', `${name}@example.com`)).toBeUndefined();
    expect(await f.users.findIdByLogin(f.tenantId, 'email', `${name}-2@example.com`)).toBe(u.id);
    expect(await f.users.findIdByLogin(f.tenantId, 'phone_number', '+15551239999')).toBe(u.id);
    // The old email is free for someone else now.
    await f.users.create({ tenant_id: f.tenantId, email: `${name}@example.com` }, ACTOR);
    // Changing only the case keeps the marker (and the value as written).
    const recased = await f.users.update(u.id, { email: `${name.toUpperCase()}-2@example.com` }, ACTOR);
    expect(recased.email).toBe(`${name.toUpperCase()}-2@example.com`);
    expect(await f.users.findIdByLogin(f.tenantId, 'email', `${name}-2@example.com`)).toBe(u.id);
    // null removes a field and frees its marker.
    const removed = await f.users.update(u.id, { phone_number: null }, ACTOR);
    expect(removed).not.toHaveProperty('phone_number');
    expect(await raw(userMarker(f.tenantId, 'phone_number', '+15551239999'))).toBeUndefined();
  });

  it('update to a taken value is 409 naming the field and changes nothing', async () => {
    const a = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    const b = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com`, username: fresh() }, ACTOR);
    await expect(f.users.update(b.id, { email: a.email!.toUpperCase(), name: 'B' }, ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('body.email'),
    });
    expect(await f.users.get(b.id)).toEqual(b);
    expect(await f.users.findIdByLogin(f.tenantId, 'email', b.email!)).toBe(b.id);
  });

  it('racing email changes of two users to one value: one wins, the loser keeps its old marker', async () => {
    const target = `${fresh()}@example.com`;
    const a = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    const b = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    const results = await Promise.allSettled([
      f.users.update(a.id, { email: target }, ACTOR),
      f.users.update(b.id, { email: target }, ACTOR),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const winner = results[0]!.status === 'fulfilled' ? a : b;
    const loser = winner === a ? b : a;
    expect(await f.users.findIdByLogin(f.tenantId, 'email', target)).toBe(winner.id);
    expect(await f.users.findIdByLogin(f.tenantId, 'email', loser.email!)).toBe(loser.id);
    expect((await f.users.get(loser.id))!.email).toBe(loser.email);
  });

  it('concurrent patches of one user all land (version lock, re-merge), and its markers follow the last email', async () => {
    const u = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    await Promise.all(Array.from({ length: 8 }, (_, i) => f.users.update(u.id, { user_metadata: { [`k${i}`]: i } }, ACTOR)));
    const after = await f.users.get(u.id);
    expect(Object.keys(after!.user_metadata).sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7']);
    expect(after!.version).toBe(9);
    await expect(f.users.update(u.id, { name: 'x' }, ACTOR, { expectedVersion: 1 })).rejects.toMatchObject({ status: 409 });
  });

  it('setBlocked blocks with tokens_revoked_at, unblock keeps it; setPasswordHash sets the hash and revokes unless told not to', async () => {
    const u = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    const at = new Date('2026-01-15T11:00:00.000Z');
    const blocked = await f.users.setBlocked(u.id, true, at, ACTOR);
    expect(blocked).toMatchObject({ blocked: true, tokens_revoked_at: at.toISOString(), updated_at: at.toISOString(), version: 2 });
    const unblocked = await f.users.setBlocked(u.id, false, new Date('2026-01-15T12:00:00.000Z'));
    expect(unblocked).toMatchObject({ blocked: false, tokens_revoked_at: at.toISOString(), version: 3 });
    const later = new Date('2026-01-15T13:00:00.000Z');
    const changed = await f.users.setPasswordHash(u.id, '$argon2id$new', later, { actor: ACTOR });
    expect(changed).toMatchObject({ password_hash: '$argon2id$new', tokens_revoked_at: later.toISOString() });
    const rehashed = await f.users.setPasswordHash(u.id, '$argon2id$rehash', new Date('2026-01-15T14:00:00.000Z'), { revokeTokens: false });
    expect(rehashed).toMatchObject({ password_hash: '$argon2id$rehash', tokens_revoked_at: later.toISOString() });
    await expect(f.users.setBlocked('019b0000-0000-7000-8000-0000000000ff', true, at)).rejects.toMatchObject({ status: 404 });
    await expect(f.users.setPasswordHash('019b0000-0000-7000-8000-0000000000ff', 'h', at)).rejects.toMatchObject({ status: 404 });
  });

  it('delete removes the user, markers and OTP item in one transaction, then 150 refresh tokens in pages', async () => {
    const name = fresh();
    const u = await f.users.create(
      { tenant_id: f.tenantId, email: `${name}@example.com`, username: name, phone_number: '+15551230150' },
      ACTOR,
    );
    await f.db.send(new PutCommand({ TableName: f.tableName, Item: { ...keys.userOtp(u.id), type: 'UserOtp' } }));
    await putRefreshTokens(u.id, 150);
    const count = await f.users.count(f.tenantId);
    const sent: { name: string; items: number }[] = [];
    const original = f.db.send.bind(f.db);
    const spy = vi.spyOn(f.db, 'send').mockImplementation(((cmd: { constructor: { name: string }; input: any }) => {
      const batch = Object.values(cmd.input?.RequestItems ?? {})[0] as unknown[] | undefined;
      sent.push({ name: cmd.constructor.name, items: cmd.input?.TransactItems?.length ?? batch?.length ?? 1 });
      return original(cmd as never);
    }) as never);
    try {
      expect(await f.users.delete(u.id)).toBe(true);
    } finally {
      spy.mockRestore();
    }
    const transactions = sent.filter((s) => s.name === 'TransactWriteCommand');
    expect(transactions).toHaveLength(1);
    expect(transactions[0]!.items).toBeLessThanOrEqual(6);
    const batches = sent.filter((s) => s.name === 'BatchWriteCommand');
    expect(batches.length).toBeGreaterThanOrEqual(6);
    for (const b of batches) expect(b.items).toBeLessThanOrEqual(25);
    expect(await f.users.get(u.id)).toBeUndefined();
    for (const key of [
      keys.userOtp(u.id),
      userMarker(f.tenantId, 'email', u.email!),
      userMarker(f.tenantId, 'username', name),
      userMarker(f.tenantId, 'phone_number', '+15551230150'),
    ]) {
      expect(await raw(key)).toBeUndefined();
    }
    expect(await refreshCount(u.id)).toBe(0);
    expect(await f.users.count(f.tenantId)).toBe(count - 1);
    // The values are free again.
    await f.users.create({ tenant_id: f.tenantId, email: u.email!, username: name, phone_number: '+15551230150' }, ACTOR);
  });

  it('an interrupted delete (user gone, refresh tokens left) finishes when run again; a missing id deletes nothing else', async () => {
    const u = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    const other = await f.users.create({ tenant_id: f.tenantId, email: `${fresh()}@example.com` }, ACTOR);
    await putRefreshTokens(u.id, 30);
    await putRefreshTokens(other.id, 3);
    // The function dies during the sweep: its second BatchWriteItem fails.
    const original = f.db.send.bind(f.db);
    let batches = 0;
    const spy = vi.spyOn(f.db, 'send').mockImplementation(((cmd: { constructor: { name: string } }) => {
      if (cmd.constructor.name === 'BatchWriteCommand' && ++batches === 2) return Promise.reject(new Error('crashed'));
      return original(cmd as never);
    }) as never);
    try {
      await expect(f.users.delete(u.id)).rejects.toThrow('crashed');
    } finally {
      spy.mockRestore();
    }
    expect(await f.users.get(u.id)).toBeUndefined();
    expect(await refreshCount(u.id)).toBe(5);
    expect(await f.users.delete(u.id)).toBe(false);
    expect(await refreshCount(u.id)).toBe(0);
    expect(await refreshCount(other.id)).toBe(3);
  });

  it("delete with a refusing accept (another tenant's caller) touches nothing", async () => {
    const u = await f.users.create({ tenant_id: OTHER_TENANT, email: `${fresh()}@example.com` }, ACTOR);
    await putRefreshTokens(u.id, 2);
    expect(await f.users.delete(u.id, (user) => user.tenant_id === f.tenantId)).toBe(false);
    expect(await f.users.get(u.id)).toEqual(u);
    expect(await refreshCount(u.id)).toBe(2);
  });

  it('lists the tenant collection in creation order', async () => {
    const t = '019b0000-0000-7000-8000-00000000d777';
    const a = await f.users.create({ tenant_id: t, email: `${fresh()}@example.com` }, ACTOR);
    const b = await f.users.create({ tenant_id: t, username: fresh() }, ACTOR);
    expect((await f.users.listAll(t)).map((u) => u.id)).toEqual([a.id, b.id]);
    expect(await f.users.count(t)).toBe(2);
  });
});

async function putRefreshTokens(userId: string, count: number) {
  await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const hash = `${userId}-${i}-${Math.random().toString(36).slice(2)}`;
      return f.db.send(
        new PutCommand({
          TableName: f.tableName,
          Item: { ...keys.refreshToken(hash), GSI1PK: keys.userRefreshTokens(userId), GSI1SK: hash, type: 'RefreshToken', user_id: userId },
        }),
      );
    }),
  );
}

async function refreshCount(userId: string): Promise<number> {
  const out = await f.db.send(
    new QueryCommand({
      TableName: f.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :p',
      ExpressionAttributeValues: { ':p': keys.userRefreshTokens(userId) },
      Select: 'COUNT',
    }),
  );
  return out.Count ?? 0;
}
