import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT } from '../../support/management/clients-fixture.ts';
import { GOOD_PASSWORD, type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';
import { loginClient, tokenRequest } from '../../support/oauth/login-grants.ts';

let fx: UsersFixture;
beforeAll(async () => {
  fx = await usersFixture();
});
afterAll(async () => fx?.stop());

const stored = async (key: { PK: string; SK: string }) => {
  const { runtime } = fx.svc.stack;
  return (await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: key, ConsistentRead: true }))).Item;
};
const ALL_USER_SCOPES = 'read:users create:users update:users delete:users';

describe('"self" routes (docs/contract.md §7.6): the user with its own management-API token', () => {
  it('PUT /password as self needs old_password: missing 400, wrong 403 (nothing changes), right 204', async () => {
    const u = await fx.createUser({ password: GOOD_PASSWORD });
    const before = await stored(keys.user(u.id));
    const token = await fx.userToken(u.id);
    const missing = await fx.call('PUT', `/users/${u.id}/password`, { body: { password: `${GOOD_PASSWORD}-new` }, token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('body.old_password');
    const wrong = await fx.call('PUT', `/users/${u.id}/password`, {
      body: { password: `${GOOD_PASSWORD}-new`, old_password: 'not-the-password' },
      token,
    });
    expect(wrong.status).toBe(403);
    expect((await stored(keys.user(u.id)))?.password_hash).toBe(before?.password_hash);
    const weak = await fx.call('PUT', `/users/${u.id}/password`, { body: { password: 'password1', old_password: GOOD_PASSWORD }, token });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toContain('body.password');
    const ok = await fx.call('PUT', `/users/${u.id}/password`, {
      body: { password: `${GOOD_PASSWORD}-new`, old_password: GOOD_PASSWORD },
      token,
    });
    expect(ok.status).toBe(204);
    const after = await stored(keys.user(u.id));
    expect(after?.password_hash).not.toBe(before?.password_hash);
    expect(typeof after?.tokens_revoked_at).toBe('string');
    // A success resets the failure count (the wrong try above was counted).
    expect(after).not.toHaveProperty('login_failures');
  });

  it('wrong old_password tries count towards the lockout: the 11th is 429 with Retry-After, even when right', async () => {
    const u = await fx.createUser({ password: GOOD_PASSWORD });
    const token = await fx.userToken(u.id);
    const body = (old: string) => ({ body: { password: `${GOOD_PASSWORD}-x`, old_password: old }, token });
    for (let i = 0; i < 10; i++) expect((await fx.call('PUT', `/users/${u.id}/password`, body(`wrong-${i}`))).status).toBe(403);
    const locked = await fx.call('PUT', `/users/${u.id}/password`, body(GOOD_PASSWORD));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The count is on the user's item, and the API never shows it (USER_STORAGE_ONLY).
    expect((await stored(keys.user(u.id)))?.login_failures).toBe(10);
    const shown = await fx.call('GET', `/users/${u.id}`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body).filter((k) => k.startsWith('login_'))).toEqual([]);
    // An administrator is not locked out of setting it.
    expect((await fx.call('PUT', `/users/${u.id}/password`, { body: { password: `${GOOD_PASSWORD}-admin` } })).status).toBe(204);
  });

  it("another user's token is 403 on the self routes; the other user's password is untouched", async () => {
    const a = await fx.createUser({ password: GOOD_PASSWORD });
    const b = await fx.createUser({ password: GOOD_PASSWORD });
    const hash = (await stored(keys.user(b.id)))?.password_hash;
    const tokenA = await fx.userToken(a.id, { scope: ALL_USER_SCOPES });
    const res = await fx.call('PUT', `/users/${b.id}/password`, {
      body: { password: `${GOOD_PASSWORD}-x`, old_password: GOOD_PASSWORD },
      token: tokenA,
    });
    expect(res.status).toBe(403);
    expect((await stored(keys.user(b.id)))?.password_hash).toBe(hash);
    expect((await fx.call('POST', `/users/${b.id}/otp`, { token: tokenA })).status).toBe(403);
    expect((await fx.call('DELETE', `/users/${b.id}/otp`, { token: tokenA })).status).toBe(403);
  });

  it("a user token never holds its client's management scopes (until RBAC): 403 on every other users route", async () => {
    const u = await fx.createUser();
    // The Default Client holds every management scope; its user's token claims them all.
    const token = await fx.userToken(u.id, { scope: ALL_USER_SCOPES });
    const list = await fx.call('GET', '/users', { token });
    expect(list.status).toBe(403);
    expect(list.body.code).toBe('insufficient_scope');
    expect((await fx.call('GET', `/users/${u.id}`, { token })).status).toBe(403);
    expect((await fx.call('PATCH', `/users/${u.id}`, { body: { name: 'me' }, token })).status).toBe(403);
    expect((await fx.call('POST', `/users/${u.id}/unblock`, { token })).status).toBe(403);
    expect((await fx.call('DELETE', `/users/${u.id}`, { token })).status).toBe(403);
    expect((await fx.call('POST', '/users', { body: { email: 'x@example.com' }, token })).status).toBe(403);
    expect((await fx.call('GET', '/clients', { token })).status).toBe(403);
    // Its own password route without old_password: the self path (400), not the update:users path.
    expect((await fx.call('PUT', `/users/${u.id}/password`, { body: { password: GOOD_PASSWORD }, token })).status).toBe(400);
  });

  it('a client token whose sub equals the path id is not a user: 403 without update:users', async () => {
    const token = await fx.svc.managementToken('read:users');
    const res = await fx.call('PUT', `/users/${fx.svc.clientId}/password`, { body: { password: GOOD_PASSWORD, old_password: 'x' }, token });
    expect(res.status).toBe(403);
  });

  it('the token of a blocked or deleted user is 401 on the self routes', async () => {
    const blocked = await fx.createUser({ password: GOOD_PASSWORD });
    const blockedToken = await fx.userToken(blocked.id);
    expect((await fx.call('POST', `/users/${blocked.id}/block`)).status).toBe(200);
    const r1 = await fx.call('POST', `/users/${blocked.id}/otp`, { token: blockedToken });
    expect(r1.status).toBe(401);
    expect(r1.headers.get('www-authenticate')).toContain('invalid_token');
    const gone = await fx.createUser();
    const goneToken = await fx.userToken(gone.id);
    expect((await fx.call('DELETE', `/users/${gone.id}`)).status).toBe(204);
    expect((await fx.call('POST', `/users/${gone.id}/otp`, { token: goneToken })).status).toBe(401);
  });

  it('a forged self: a token whose sub names the user but signed by another key is 401', async () => {
    const u = await fx.createUser();
    const token = await fx.userToken(u.id);
    const [h, p] = token.split('.');
    const other = await fx.userToken((await fx.createUser()).id);
    const forged = `${h}.${p}.${other.split('.')[2]}`;
    expect((await fx.call('POST', `/users/${u.id}/otp`, { token: forged })).status).toBe(401);
  });

  it('OTP enrolment as self: 201 {secret, otpauth_uri} no-store, the code verifies; re-enrol replaces; DELETE 204 then 404', async () => {
    const u = await fx.createUser({ username: `otp-${Date.now()}`, password: GOOD_PASSWORD });
    const token = await fx.userToken(u.id);
    const body = { password: GOOD_PASSWORD };
    const res = await fx.call('POST', `/users/${u.id}/otp`, { token, body });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['otpauth_uri', 'secret']);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(res.body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(res.body.secret);
    expect(decodeURIComponent(uri.pathname)).toContain(u.email);
    // The stored secret is sealed: the plaintext is not in the item; the user enrolled it.
    const item = await stored(keys.userOtp(u.id));
    expect(JSON.stringify(item)).not.toContain(res.body.secret);
    expect(item?.enrolled_by).toBe(u.id);
    expect(totp(base32Decode(res.body.secret)!, new Date())).toMatch(/^\d{6}$/);
    const again = await fx.call('POST', `/users/${u.id}/otp`, { token, body });
    expect(again.status).toBe(201);
    expect(again.body.secret).not.toBe(res.body.secret);
    expect((await fx.call('DELETE', `/users/${u.id}/otp`, { token, body })).status).toBe(204);
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
    expect((await fx.call('DELETE', `/users/${u.id}/otp`)).status).toBe(404);
  });

  it('deleting a user removes its OTP authenticator and its login-failure count (on its item) too', async () => {
    const u = await fx.createUser({ password: GOOD_PASSWORD });
    const token = await fx.userToken(u.id);
    expect((await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } })).status).toBe(201);
    await fx.call('PUT', `/users/${u.id}/password`, { body: { password: `${GOOD_PASSWORD}-x`, old_password: 'wrong' }, token });
    expect((await stored(keys.user(u.id)))?.login_failures).toBe(1);
    expect((await fx.call('DELETE', `/users/${u.id}`)).status).toBe(204);
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
    expect(await stored(keys.user(u.id))).toBeUndefined();
  });
});

describe('an authenticator changes only with the current password (docs/users.md "TOTP")', () => {
  let otpLogin: Awaited<ReturnType<typeof loginClient>>;
  beforeAll(async () => {
    otpLogin = await loginClient(fx.svc, ['otp']);
  });
  const otpGrant = (username: string, otp: string) => tokenRequest(fx.svc, otpLogin.auth, 'otp', { username, otp });
  const loginUser = () => fx.createUser({ username: `self-otp-${randomUUID().slice(0, 8)}`, password: GOOD_PASSWORD });

  it("a manager's POST /users/{id}/otp for another user is 403 naming the rule: no secret, nothing enrolled, the otp grant refuses", async () => {
    const u = await loginUser();
    const res = await fx.call('POST', `/users/${u.id}/otp`); // the Default Client: every management scope
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'forbidden', message: expect.stringContaining('Only the user itself enrols an authenticator') });
    expect(res.body.message).toContain('/tickets/otp-enrollment');
    expect(JSON.stringify(res.body)).not.toContain(u.id);
    expect((await stored(keys.user(u.id)))?.otp_enrolled).toBe(false);
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
    const grant = await otpGrant(u.username, '123456');
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('invalid_grant');
  });

  it('POST /users/{me}/otp with only the token: 400 naming body.password; a wrong one 403 and counted; the right one 201', async () => {
    const u = await loginUser();
    const token = await fx.userToken(u.id);
    const first = await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } });
    expect(first.status).toBe(201);
    const enrolled = await stored(keys.userOtp(u.id));

    const missing = await fx.call('POST', `/users/${u.id}/otp`, { token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('body.password');
    const wrong = await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: 'not-the-password-1' } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe('body.password: does not match.');
    expect(JSON.stringify(wrong.body)).not.toContain('not-the-password-1');
    // Counted like a login attempt; the authenticator is the one the user enrolled.
    expect((await stored(keys.user(u.id)))?.login_failures).toBe(1);
    expect((await stored(keys.userOtp(u.id)))?.secret_sealed).toBe(enrolled?.secret_sealed);
    const code = totp(base32Decode(first.body.secret)!, fx.clock.now());
    expect((await otpGrant(u.username, code)).status).toBe(200);

    const right = await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } });
    expect(right.status).toBe(201);
    expect(await stored(keys.user(u.id))).not.toHaveProperty('login_failures');
  });

  it('wrong passwords at the authenticator routes count towards the lockout: the 11th is 429 with Retry-After, even when right', async () => {
    const u = await loginUser();
    const token = await fx.userToken(u.id);
    for (let i = 0; i < 10; i++) {
      const method = i % 2 ? 'DELETE' : 'POST';
      expect((await fx.call(method, `/users/${u.id}/otp`, { token, body: { password: `wrong-${i}` } })).status).toBe(403);
    }
    const locked = await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
  });

  it('DELETE /users/{me}/otp likewise: missing 400, wrong 403 (still enrolled), right 204; a manager needs none', async () => {
    const u = await loginUser();
    const token = await fx.userToken(u.id);
    expect((await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } })).status).toBe(201);
    const missing = await fx.call('DELETE', `/users/${u.id}/otp`, { token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('body.password');
    expect((await fx.call('DELETE', `/users/${u.id}/otp`, { token, body: { password: 'not-the-password-1' } })).status).toBe(403);
    expect((await stored(keys.user(u.id)))?.otp_enrolled).toBe(true);
    expect((await fx.call('DELETE', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } })).status).toBe(204);
    expect((await stored(keys.user(u.id)))?.otp_enrolled).toBe(false);
    expect((await fx.call('POST', `/users/${u.id}/otp`, { token, body: { password: GOOD_PASSWORD } })).status).toBe(201);
    expect((await fx.call('DELETE', `/users/${u.id}/otp`)).status).toBe(204); // update:users, a plain user
  });

  it('a user without a password cannot enrol itself through the API (400: a password-change ticket first)', async () => {
    const u = await fx.createUser();
    const res = await fx.call('POST', `/users/${u.id}/otp`, { token: await fx.userToken(u.id), body: { password: 'anything-at-all-1' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('body.password');
    expect(res.body.message).toContain('password-change ticket');
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
  });

  it("a user holding update:users is still 'self' on its own id: its token alone neither enrols nor sets its password", async () => {
    const u = await loginUser();
    const api = await oauthDeps(fx.svc.stack.runtime).findResource(DEFAULT_TENANT, fx.svc.managementAudience);
    const updateUsers = Object.entries(api!.scope_names).find(([, name]) => name === 'update:users')![0];
    const granted = await fx.call('POST', `/users/${u.id}/permissions`, {
      body: { permissions: [{ resource_id: api!.id, scopes: [updateUsers] }] },
    });
    expect(granted.status).toBe(204);
    const token = await fx.userToken(u.id, { scope: 'update:users' });
    const enrol = await fx.call('POST', `/users/${u.id}/otp`, { token });
    expect(enrol.status).toBe(400);
    expect(enrol.body.message).toContain('body.password');
    const password = await fx.call('PUT', `/users/${u.id}/password`, { token, body: { password: `${GOOD_PASSWORD}-new` } });
    expect(password.status).toBe(400);
    expect(password.body.message).toContain('body.old_password');
    expect(await stored(keys.userOtp(u.id))).toBeUndefined();
  });
});
