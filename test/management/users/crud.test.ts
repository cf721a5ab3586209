import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { GOOD_PASSWORD, MINIMAL_USER_KEYS, type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';

let fx: UsersFixture;
beforeAll(async () => {
  fx = await usersFixture();
});
afterAll(async () => fx?.stop());

const stored = async (id: string) =>
  (
    await fx.svc.stack.runtime.db.send(
      new GetCommand({ TableName: fx.svc.stack.runtime.config.tableName, Key: keys.user(id), ConsistentRead: true }),
    )
  ).Item;

describe('Users CRUD over HTTP (docs/contract.md §6, §7.5)', () => {
  it('POST creates with the defaults: 201, no password or hash in the body, the hash stored', async () => {
    const res = await fx.call('POST', '/users', { body: { email: 'Ada@Example.com', password: GOOD_PASSWORD } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MINIMAL_USER_KEYS);
    expect(res.body).toMatchObject({
      email: 'Ada@Example.com',
      email_verified: false,
      phone_verified: false,
      blocked: false,
      last_login: null,
      logins_count: 0,
      user_metadata: {},
      app_metadata: [],
      aggregations: { roles: 0, groups: 0, permissions: 0 },
    });
    expect(res.body.created_by).toBe(fx.svc.clientId);
    const item = await stored(res.body.id);
    expect(item?.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(res.body)).not.toContain(GOOD_PASSWORD);
    expect(JSON.stringify(res.body)).not.toContain('argon2');
    const got = await fx.call('GET', `/users/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(JSON.stringify(got.body)).not.toContain('argon2');
  });

  it('creates with every profile field and reads them back', async () => {
    const body = {
      email: 'full@example.com',
      email_verified: true,
      username: 'full.user',
      phone_number: '+31612345678',
      phone_verified: true,
      name: 'Full User',
      given_name: 'Full',
      family_name: 'User',
      middle_name: 'M',
      nickname: 'fu',
      picture: 'https://example.com/p.png',
      website: 'http://example.com/',
      gender: 'female',
      birthdate: '1990-02-28',
      zoneinfo: 'Europe/Amsterdam',
      locale: 'nl-NL',
      address: { country: 'NL', locality: 'Delft', street_address: 'Main 1\nFloor 2' },
      user_metadata: { theme: 'dark', nested: { a: [1, 2] } },
      app_metadata: [{ key: 'plan', value: 'gold' }],
    };
    const res = await fx.call('POST', '/users', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject(body);
    expect((await fx.call('GET', `/users/${res.body.id}?fields=username,address`)).body).toEqual({
      username: 'full.user',
      address: body.address,
    });
  });

  it('PATCH merges (objects merge, arrays replace, null removes), PUT is a synonym; the version moves', async () => {
    const u = await fx.createUser({
      username: `merge-${Date.now()}`,
      address: { country: 'NL', locality: 'Delft' },
      user_metadata: { a: 1 },
    });
    const patched = await fx.call('PATCH', `/users/${u.id}`, {
      body: { name: 'New', address: { locality: 'Leiden' }, user_metadata: { b: 2 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'New',
      username: u.username,
      address: { country: 'NL', locality: 'Leiden' },
      user_metadata: { a: 1, b: 2 },
    });
    const put = await fx.call('PUT', `/users/${u.id}`, {
      body: { name: null, address: { country: null }, app_metadata: [{ key: 'k', value: 'v' }] },
    });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('name');
    expect(put.body.address).toEqual({ locality: 'Leiden' });
    expect(put.body.app_metadata).toEqual([{ key: 'k', value: 'v' }]);
    expect((await stored(u.id))?.version).toBe(3);
  });

  it('user_metadata merged over PATCHes keeps its 16 KB bound: 400 naming the field, the record unchanged', async () => {
    // The bound holds for the merged result, not each PATCH: PATCHes each within it could otherwise
    // add keys until the item passed DynamoDB's 400 KB limit, and every write of the user, logins and
    // blocking included, would then be a 500.
    const u = await fx.createUser({ username: `grow-${Date.now()}` });
    const chunk = 'x'.repeat(6000);
    for (const key of ['k1', 'k2']) {
      expect((await fx.call('PATCH', `/users/${u.id}`, { body: { user_metadata: { [key]: chunk } } })).status).toBe(200);
    }
    const third = await fx.call('PATCH', `/users/${u.id}`, { body: { user_metadata: { k3: chunk } } });
    expect(third.status).toBe(400);
    expect(third.body).toEqual({
      code: 'invalid_request',
      message: 'body.user_metadata: would be more than 16384 bytes as JSON once merged into the stored value.',
    });
    const item = await stored(u.id);
    expect(Object.keys(item?.user_metadata ?? {})).toEqual(['k1', 'k2']);
    expect(item?.version).toBe(3);
    // Making room (a smaller value for a key) lets the next merge in.
    const replaced = await fx.call('PATCH', `/users/${u.id}`, { body: { user_metadata: { k1: 0, k3: chunk } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.user_metadata).toEqual({ k1: 0, k2: chunk, k3: chunk });
  });

  it('changing the email resets email_verified unless the same PATCH sets it', async () => {
    const u = await fx.createUser({ email_verified: true });
    const moved = await fx.call('PATCH', `/users/${u.id}`, { body: { email: `x${u.email}` } });
    expect(moved.body.email_verified).toBe(false);
    const kept = await fx.call('PATCH', `/users/${u.id}`, { body: { email: `y${u.email}`, email_verified: true } });
    expect(kept.body.email_verified).toBe(true);
    const recased = await fx.call('PATCH', `/users/${u.id}`, { body: { email: `Y${u.email}` } });
    expect(recased.body.email_verified).toBe(true);
  });

  it('a PATCH may not remove the last login identifier (400), nor set password or tenant_id (400 naming the field)', async () => {
    const u = await fx.createUser();
    const res = await fx.call('PATCH', `/users/${u.id}`, { body: { email: null } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('body.email');
    expect((await fx.call('GET', `/users/${u.id}`)).body.email).toBe(u.email);
    const pw = await fx.call('PATCH', `/users/${u.id}`, { body: { password: GOOD_PASSWORD } });
    expect(pw.status).toBe(400);
    expect(pw.body.message).toContain('body.password');
    expect(pw.body.message).not.toContain(GOOD_PASSWORD);
    const t = await fx.call('PATCH', `/users/${u.id}`, { body: { tenant_id: UNKNOWN_ID } });
    expect(t.status).toBe(400);
    expect(t.body.message).toContain('body.tenant_id');
  });

  it('DELETE is 204, then the user is 404 everywhere and its email free again', async () => {
    const u = await fx.createUser({ username: `gone-${Date.now()}` });
    expect((await fx.call('DELETE', `/users/${u.id}`)).status).toBe(204);
    for (const [method, path] of [
      ['GET', `/users/${u.id}`],
      ['PATCH', `/users/${u.id}`],
      ['DELETE', `/users/${u.id}`],
      ['POST', `/users/${u.id}/block`],
      ['POST', `/users/${u.id}/unblock`],
    ] as const) {
      const res = await fx.call(method, path, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await fx.call('PUT', `/users/${u.id}/password`, { body: { password: GOOD_PASSWORD } })).status).toBe(404);
    await fx.createUser({ email: u.email, username: u.username });
  });

  it('unknown ids are 404, malformed ids 400 naming path.user_id', async () => {
    expect((await fx.call('GET', `/users/${UNKNOWN_ID}`)).status).toBe(404);
    const bad = await fx.call('GET', '/users/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('path.user_id');
    // An upper-case spelling names the same user.
    const u = await fx.createUser();
    expect((await fx.call('GET', `/users/${u.id.toUpperCase()}`)).body.id).toBe(u.id);
  });

  it('block and unblock answer 200 with the User; blocking stores tokens_revoked_at, which no response shows', async () => {
    const u = await fx.createUser();
    const blocked = await fx.call('POST', `/users/${u.id}/block`);
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ id: u.id, blocked: true });
    expect(blocked.body).not.toHaveProperty('tokens_revoked_at');
    const item = await stored(u.id);
    expect(typeof item?.tokens_revoked_at).toBe('string');
    expect((await fx.call('GET', `/users/${u.id}`)).body.blocked).toBe(true);
    const again = await fx.call('POST', `/users/${u.id}/block`);
    expect(again.status).toBe(200);
    const revokedAt = (await stored(u.id))?.tokens_revoked_at;
    expect(revokedAt >= item?.tokens_revoked_at).toBe(true);
    const unblocked = await fx.call('POST', `/users/${u.id}/unblock`);
    expect(unblocked.status).toBe(200);
    expect(unblocked.body.blocked).toBe(false);
    // Unblocking does not bring the tokens of before the block back.
    expect((await stored(u.id))?.tokens_revoked_at).toBe(revokedAt);
  });

  it('PUT /password with update:users: 204, a new hash and tokens_revoked_at; rules are 400 naming body.password', async () => {
    const u = await fx.createUser({ username: `pw-${Date.now()}` });
    const res = await fx.call('PUT', `/users/${u.id}/password`, { body: { password: GOOD_PASSWORD } });
    expect(res.status).toBe(204);
    const item = await stored(u.id);
    expect(item?.password_hash).toMatch(/^\$argon2id\$/);
    expect(typeof item?.tokens_revoked_at).toBe('string');
    for (const weak of ['short', 'password123', u.email, u.username]) {
      const r = await fx.call('PUT', `/users/${u.id}/password`, { body: { password: weak } });
      expect(r.status, weak).toBe(400);
      expect(r.body.message).toContain('body.password');
      expect(r.body.message).not.toContain(weak);
    }
    const created = await fx.call('POST', '/users', { body: { email: 'weak@example.com', password: 'password1' } });
    expect(created.status).toBe(400);
    expect(created.body.message).toContain('body.password');
    expect((await fx.call('GET', '/users?q=(email=weak@example.com)')).body.count).toBe(0);
  });
});
