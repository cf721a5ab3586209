import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpStep } from '#shared/crypto/totp.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { credentialIdHash, type NewPasskey, passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { GOOD_PASSWORD, type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';

/**
 * GET and DELETE /users/{user_id}/authenticators (docs/management-users.md "Authenticators") over HTTP
 * against the local service and DynamoDB Local: the listing (TOTP and passkeys, never key material),
 * the removal of either kind, the scopes, "self" with its password, no takeover, tenants, validation.
 */
let fx: UsersFixture;
let tenantB: string;
let boundToken: string;
let systemResource: string;
const scopeIds = new Map<string, string>();

beforeAll(async () => {
  fx = await usersFixture({ MULTI_TENANT: 'true' });
  tenantB = await fx.createTenant('authenticators-b');
  const bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  boundToken = await fx.clientToken(bound, 'read:users update:users');
  const resources = await fx.call('GET', '/resources?limit=100');
  systemResource = resources.body.items.find((r: any) => r.resource_metadata.is_system).id;
  const scopes = await fx.call('GET', `/resources/${systemResource}/scopes?limit=100`);
  for (const s of scopes.body.items) scopeIds.set(s.scope_name, s.id);
});
afterAll(async () => fx?.stop());

const runtime = () => fx.svc.stack.runtime;
const passkeys = () => passkeysRepository(runtime().db, runtime().config.tableName, runtime().now);
const otp = () =>
  otpRepository(runtime().db, runtime().config.tableName, runtime().now, runtime().secretBox, {
    maxFailures: runtime().config.login.otpMaxFailures,
  });
const stored = async (key: { PK: string; SK: string }) =>
  (await runtime().db.send(new GetCommand({ TableName: runtime().config.tableName, Key: key, ConsistentRead: true }))).Item;

const newPasskey = (user: Record<string, any>, fields: Partial<NewPasskey> = {}): NewPasskey => ({
  user_id: user.id,
  tenant_id: user.tenant_id,
  credential_id: randomBytes(32).toString('base64url'),
  public_key: randomBytes(77).toString('base64url'),
  counter: 7,
  transports: ['internal', 'hybrid'],
  device_type: 'singleDevice',
  backed_up: false,
  aaguid: 'adce0002-35bc-c60a-648b-0b25f1f05503',
  name: 'Security key',
  ...fields,
});

const TOTP_KEYS = ['created_at', 'disabled', 'id', 'last_used_at', 'name', 'type'];
const PASSKEY_KEYS = ['backed_up', 'created_at', 'id', 'last_used_at', 'name', 'synced', 'type'];
const path = (userId: string, id?: string) => `/users/${userId}/authenticators${id === undefined ? '' : `/${id}`}`;

/** A user with a password, a TOTP authenticator (enrolled as itself) and two passkeys. */
async function userWithAuthenticators(body: Record<string, unknown> = {}) {
  const user = await fx.createUser({ password: GOOD_PASSWORD, ...body });
  const headers: Record<string, string> = body.tenant_id ? { tenant_id: String(body.tenant_id) } : {};
  const key = await passkeys().add(newPasskey(user, { name: 'YubiKey 5' }));
  const synced = await passkeys().add(
    newPasskey(user, { name: 'iCloud Keychain', device_type: 'multiDevice', backed_up: true, counter: 0 }),
  );
  const token = await fx.userToken(user.id);
  const enrolled = await fx.call('POST', `/users/${user.id}/otp`, { token, body: { password: GOOD_PASSWORD }, headers });
  expect(enrolled.status).toBe(201);
  return { user, key, synced, secret: enrolled.body.secret as string, token, headers };
}

describe('GET /users/{user_id}/authenticators', () => {
  it('lists the TOTP authenticator and every passkey, oldest first, with exactly the documented members', async () => {
    const { user, key, synced, secret } = await userWithAuthenticators();
    // A used passkey and an accepted code show their last use.
    const usedAt = new Date('2026-05-01T10:00:00.000Z');
    expect(await passkeys().recordLogin({ userId: user.id, at: usedAt, passkey: key, counter: 8 })).toBe(true);
    const found = await otp().find(user.id);
    const step = totpStep(runtime().now());
    expect(await otp().accept(user.id, found!.sealed, step)).toBe(true);
    const totpItem = await stored(keys.userOtp(user.id));

    const res = await fx.call('GET', path(user.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['items']);
    expect(res.body.items).toEqual([
      {
        id: key.id,
        type: 'passkey',
        name: 'YubiKey 5',
        created_at: key.created_at,
        last_used_at: usedAt.toISOString(),
        synced: false,
        backed_up: false,
      },
      {
        id: synced.id,
        type: 'passkey',
        name: 'iCloud Keychain',
        created_at: synced.created_at,
        last_used_at: null,
        synced: true,
        backed_up: true,
      },
      {
        id: 'totp',
        type: 'totp',
        name: 'Authenticator app',
        created_at: totpItem?.created_at,
        last_used_at: totpItem?.last_used_at,
        disabled: false,
      },
    ]);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(PASSKEY_KEYS);
    expect(Object.keys(res.body.items[1]).sort()).toEqual(PASSKEY_KEYS);
    expect(Object.keys(res.body.items[2]).sort()).toEqual(TOTP_KEYS);
    // No key material, credential id, secret or counter anywhere in the answer.
    const text = JSON.stringify(res.body);
    for (const p of [key, synced]) {
      expect(text).not.toContain(p.credential_id);
      expect(text).not.toContain(p.public_key);
      expect(text).not.toContain(credentialIdHash(p.credential_id));
    }
    expect(text).not.toContain(secret);
    expect(text).not.toContain(String(totpItem?.secret_sealed));
    expect(text).not.toMatch(/counter|aaguid|transports|public_key|credential_id|secret/);
  });

  it('a user with none: an empty list; the query string changes nothing', async () => {
    const user = await fx.createUser();
    const empty = await fx.call('GET', path(user.id));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
    const { user: rich } = await userWithAuthenticators();
    const all = await fx.call('GET', path(rich.id));
    expect((await fx.call('GET', `${path(rich.id)}?limit=1&fields=id`)).body).toEqual(all.body);
  });

  it('a disabled TOTP authenticator says so; one never used has last_used_at null', async () => {
    const user = await fx.createUser({ password: GOOD_PASSWORD });
    await otp().enroll(user.id, { enrolledBy: user.id });
    const fresh = await fx.call('GET', path(user.id));
    expect(fresh.body.items).toEqual([expect.objectContaining({ id: 'totp', last_used_at: null, disabled: false })]);
    await runtime().db.send(
      new UpdateCommand({
        TableName: runtime().config.tableName,
        Key: keys.userOtp(user.id),
        UpdateExpression: 'SET failures = :n',
        ExpressionAttributeValues: { ':n': runtime().config.login.otpMaxFailures },
      }),
    );
    const disabled = await fx.call('GET', path(user.id));
    expect(disabled.status).toBe(200);
    expect(disabled.body.items).toEqual([expect.objectContaining({ id: 'totp', disabled: true })]);
  });

  it('scopes: read:users or the user itself; another user, or update:users alone, is 403', async () => {
    const { user, token } = await userWithAuthenticators();
    const self = await fx.call('GET', path(user.id), { token });
    expect(self.status).toBe(200);
    expect(self.body.items).toHaveLength(3);

    const other = await fx.createUser({ password: GOOD_PASSWORD });
    const otherToken = await fx.userToken(other.id);
    const refused = await fx.call('GET', path(user.id), { token: otherToken });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect(refused.body.message).toContain('read:users');
    expect(refused.headers.get('www-authenticate')).toContain('scope="read:users"');

    const writer = await fx.createClient({ client_name: 'writer only' });
    const writerToken = await fx.clientToken(writer, 'update:users');
    const noRead = await fx.call('GET', path(user.id), { token: writerToken });
    expect(noRead.status).toBe(403);
    expect(noRead.body.code).toBe('insufficient_scope');

    const reader = await fx.createClient({ client_name: 'reader' });
    const readerToken = await fx.clientToken(reader, 'read:users');
    expect((await fx.call('GET', path(user.id), { token: readerToken })).body.items).toHaveLength(3);
    expect((await fx.call('GET', path(user.id), { token: null })).status).toBe(401);
  });

  it('unknown user 404; another tenant’s user is 404 for a tenant-bound caller, its own tenant’s user is listed', async () => {
    expect((await fx.call('GET', path(randomUUID()))).status).toBe(404);
    const { user } = await userWithAuthenticators();
    const hidden = await fx.call('GET', path(user.id), { token: boundToken });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ code: 'not_found', message: expect.any(String) });
    const { user: inB } = await userWithAuthenticators({ tenant_id: tenantB });
    const listed = await fx.call('GET', path(inB.id), { token: boundToken });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(3);
  });
});

describe('DELETE /users/{user_id}/authenticators/{authenticator_id}', () => {
  it('removes a passkey: 204, the item and its count gone; again 404', async () => {
    const { user, key, synced } = await userWithAuthenticators();
    const res = await fx.call('DELETE', path(user.id, key.id));
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await stored(keys.userPasskey(user.id, credentialIdHash(key.credential_id)))).toBeUndefined();
    expect((await stored(keys.user(user.id)))?.passkeys_count).toBe(1);
    expect((await fx.call('GET', path(user.id))).body.items.map((i: any) => i.id)).toEqual([synced.id, 'totp']);
    const again = await fx.call('DELETE', path(user.id, key.id));
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'not_found', message: 'The user has no authenticator with this id.' });
  });

  it('removes the TOTP authenticator as DELETE /otp does: 204, otp_enrolled false; again 404', async () => {
    const { user } = await userWithAuthenticators();
    expect((await fx.call('DELETE', path(user.id, 'totp'))).status).toBe(204);
    expect(await stored(keys.userOtp(user.id))).toBeUndefined();
    expect((await stored(keys.user(user.id)))?.otp_enrolled).toBe(false);
    expect((await fx.call('DELETE', path(user.id, 'totp'))).status).toBe(404);
    expect((await fx.call('DELETE', `/users/${user.id}/otp`)).status).toBe(404);
    expect((await fx.call('GET', path(user.id))).body.items.map((i: any) => i.type)).toEqual(['passkey', 'passkey']);
  });

  it('another user’s passkey id, or an unknown one, is 404 and removes nothing', async () => {
    const { user } = await userWithAuthenticators();
    const { user: victim, key } = await userWithAuthenticators();
    const res = await fx.call('DELETE', path(user.id, key.id));
    expect(res.status).toBe(404);
    expect(await stored(keys.userPasskey(victim.id, credentialIdHash(key.credential_id)))).toBeDefined();
    expect((await stored(keys.user(victim.id)))?.passkeys_count).toBe(2);
    expect((await fx.call('DELETE', path(user.id, randomUUID()))).status).toBe(404);
    expect((await fx.call('GET', path(user.id))).body.items).toHaveLength(3);
  });

  it('the user itself: password missing 400, wrong 403 (kept, counted), right 204', async () => {
    const { user, key, token } = await userWithAuthenticators();
    const missing = await fx.call('DELETE', path(user.id, key.id), { token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('body.password');
    const wrong = await fx.call('DELETE', path(user.id, key.id), { token, body: { password: 'not-the-password-1' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toContain('body.password');
    expect((await stored(keys.user(user.id)))?.login_failures).toBe(1);
    expect((await fx.call('GET', path(user.id))).body.items).toHaveLength(3);
    const wrongTotp = await fx.call('DELETE', path(user.id, 'totp'), { token });
    expect(wrongTotp.status).toBe(400);
    expect(await stored(keys.userOtp(user.id))).toBeDefined();

    expect((await fx.call('DELETE', path(user.id, key.id), { token, body: { password: GOOD_PASSWORD } })).status).toBe(204);
    expect((await fx.call('DELETE', path(user.id, 'totp'), { token, body: { password: GOOD_PASSWORD } })).status).toBe(204);
    expect((await fx.call('GET', path(user.id), { token })).body.items.map((i: any) => i.type)).toEqual(['passkey']);
    // The right password reset the count.
    expect(await stored(keys.user(user.id))).not.toHaveProperty('login_failures');
  });

  it('another user’s token is 403 and removes nothing', async () => {
    const { user, key } = await userWithAuthenticators();
    const other = await fx.createUser({ password: GOOD_PASSWORD });
    const res = await fx.call('DELETE', path(user.id, key.id), {
      token: await fx.userToken(other.id),
      body: { password: GOOD_PASSWORD },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.body.message).toContain('update:users');
    expect((await fx.call('GET', path(user.id))).body.items).toHaveLength(3);
  });

  it('no takeover: update:users cannot remove an authenticator of a user holding more; read is allowed', async () => {
    const { user, key } = await userWithAuthenticators();
    const grant = { permissions: [{ resource_id: systemResource, scopes: [scopeIds.get('read:clients')!] }] };
    expect((await fx.call('POST', `/users/${user.id}/permissions`, { body: grant })).status).toBe(204);
    const helpdesk = await fx.createClient({ client_name: 'helpdesk' });
    const helpdeskToken = await fx.clientToken(helpdesk, 'read:users update:users');
    for (const id of [key.id, 'totp']) {
      const res = await fx.call('DELETE', path(user.id, id), { token: helpdeskToken });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.body.message).toContain('read:clients');
    }
    expect(await stored(keys.userOtp(user.id))).toBeDefined();
    expect((await stored(keys.user(user.id)))?.passkeys_count).toBe(2);
    expect((await fx.call('GET', path(user.id), { token: helpdeskToken })).body.items).toHaveLength(3);
    // A plain user's is the helpdesk's to remove.
    const { user: plain, key: plainKey } = await userWithAuthenticators();
    expect((await fx.call('DELETE', path(plain.id, plainKey.id), { token: helpdeskToken })).status).toBe(204);
  });

  it('a tenant-bound caller: another tenant’s user is 404 and keeps its authenticators', async () => {
    const { user, key } = await userWithAuthenticators();
    for (const id of [key.id, 'totp']) expect((await fx.call('DELETE', path(user.id, id), { token: boundToken })).status).toBe(404);
    expect((await fx.call('GET', path(user.id))).body.items).toHaveLength(3);
    const { user: inB, key: keyB } = await userWithAuthenticators({ tenant_id: tenantB });
    expect((await fx.call('DELETE', path(inB.id, keyB.id), { token: boundToken })).status).toBe(204);
  });

  it('validation: a malformed authenticator id, user id or body is 400 naming the field, never a 500', async () => {
    const { user } = await userWithAuthenticators();
    for (const id of ['not-a-uuid', 'TOTP', 'otp', '%20', 'x'.repeat(300)]) {
      const res = await fx.call('DELETE', path(user.id, id));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.message).toContain('authenticator_id');
    }
    const badUser = await fx.call('DELETE', path('nope', 'totp'));
    expect(badUser.status).toBe(400);
    expect(badUser.body.message).toContain('user_id');
    const badGet = await fx.call('GET', path('nope'));
    expect(badGet.status).toBe(400);
    expect(badGet.body.message).toContain('user_id');
    const extra = await fx.call('DELETE', path(user.id, 'totp'), { body: { password: GOOD_PASSWORD, force: true } });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain('force');
    expect((await fx.call('GET', path(user.id))).body.items).toHaveLength(3);
  });

  it('parallel removals of one authenticator: exactly one 204, the rest 404; the count drops once', async () => {
    const { user, key } = await userWithAuthenticators();
    for (const id of [key.id, 'totp']) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => fx.call('DELETE', path(user.id, id))));
      expect(answers.map((a) => a.status).sort()).toEqual([204, 404, 404, 404, 404, 404, 404, 404]);
    }
    expect(await stored(keys.user(user.id))).toMatchObject({ passkeys_count: 1, otp_enrolled: false });
    expect((await fx.call('GET', path(user.id))).body.items.map((i: any) => i.type)).toEqual(['passkey']);
  });

  it('the user record never shows passkeys_count, and a PUT or PATCH of the user keeps it', async () => {
    const { user } = await userWithAuthenticators();
    const put = await fx.call('PUT', `/users/${user.id}`, { body: { name: 'Replaced', user_metadata: {} } });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('passkeys_count');
    const patched = await fx.call('PATCH', `/users/${user.id}`, { body: { nickname: 'n' } });
    expect(patched.status).toBe(200);
    const read = await fx.call('GET', `/users/${user.id}?expand=all`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain('passkeys_count');
    const listed = await fx.call('GET', `/users?q=${encodeURIComponent(`(email=${user.email})`)}`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).not.toHaveProperty('passkeys_count');
    expect((await fx.call('GET', `/users?fields=passkeys_count`)).status).toBe(400);
    expect((await stored(keys.user(user.id)))?.passkeys_count).toBe(2);
  });

  it('deleting the user removes its passkeys with it; its authenticators are then 404', async () => {
    const { user, key } = await userWithAuthenticators();
    expect((await fx.call('DELETE', `/users/${user.id}`)).status).toBe(204);
    expect(await stored(keys.userPasskey(user.id, credentialIdHash(key.credential_id)))).toBeUndefined();
    expect(await stored(keys.userOtp(user.id))).toBeUndefined();
    expect((await fx.call('GET', path(user.id))).status).toBe(404);
    expect((await fx.call('DELETE', path(user.id, key.id))).status).toBe(404);
  });
});
