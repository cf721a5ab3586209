import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, type UsersFixture, usersFixture } from '../support/management/users-fixture.ts';
import { loginClient, tokenRequest } from '../support/oauth/login-grants.ts';

/**
 * End to end through the management routes themselves (not by writing the
 * user item): what a password change, a block and a delete do to the tokens a user already holds.
 * Each step is the route an administrator calls, then the refresh grant and /userinfo as the
 * client would call them.
 */
let fx: UsersFixture;
let login: Awaited<ReturnType<typeof loginClient>>;

beforeAll(async () => {
  fx = await usersFixture();
  login = await loginClient(fx.svc, ['password', 'refresh_token']);
});
afterAll(async () => fx?.stop());

/** A user with GOOD_PASSWORD and the tokens of one password login (`offline_access`: a refresh token). */
async function signedInUser() {
  const user = await fx.createUser({ username: `life_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`, password: GOOD_PASSWORD });
  const res = await passwordLogin(user.username, GOOD_PASSWORD, 'openid profile offline_access');
  expect(res.status).toBe(200);
  return { user, access: String(res.body.access_token), refresh: String(res.body.refresh_token) };
}

const passwordLogin = (username: string, password: string, scope?: string) =>
  tokenRequest(fx.svc, login.auth, 'password', { username, password, ...(scope ? { scope } : {}) });
const refresh = (token: string) => tokenRequest(fx.svc, login.auth, 'refresh_token', { refresh_token: token });
const userinfo = (token: string) => fetch(`${fx.svc.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });

async function expectDead(tokens: { access: string; refresh: string }) {
  const r = await refresh(tokens.refresh);
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: 'invalid_grant' });
  expect(r.body.access_token).toBeUndefined();
  const u = await userinfo(tokens.access);
  expect(u.status).toBe(401);
  expect(u.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
}

describe('a user lifecycle change ends the tokens the user already holds', () => {
  it('the tokens work before any change (the control)', async () => {
    const tokens = await signedInUser();
    expect((await userinfo(tokens.access)).status).toBe(200);
    const r = await refresh(tokens.refresh);
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).toEqual(expect.any(String));
  });

  it('PUT /users/{id}/password (update:users): the earlier refresh and access tokens are dead; the new password signs in', async () => {
    const tokens = await signedInUser();
    const newPassword = `${GOOD_PASSWORD}-new`;
    expect((await fx.call('PUT', `/users/${tokens.user.id}/password`, { body: { password: newPassword } })).status).toBe(204);
    await expectDead(tokens);
    const old = await passwordLogin(tokens.user.username, GOOD_PASSWORD);
    expect(old.status).toBe(400);
    // A login in the same second as the change: its tokens are minted after that second, so they work.
    const fresh = await passwordLogin(tokens.user.username, newPassword, 'openid offline_access');
    expect(fresh.status).toBe(200);
    expect((await userinfo(String(fresh.body.access_token))).status).toBe(200);
    expect((await refresh(String(fresh.body.refresh_token))).status).toBe(200);
  });

  it('POST /users/{id}/block: the tokens are dead and every login is invalid_grant; unblocking does not revive them', async () => {
    const tokens = await signedInUser();
    expect((await fx.call('POST', `/users/${tokens.user.id}/block`)).status).toBe(200);
    await expectDead(tokens);
    const blocked = await passwordLogin(tokens.user.username, GOOD_PASSWORD);
    expect(blocked.status).toBe(400);
    expect(blocked.body).toMatchObject({ error: 'invalid_grant' });
    expect((await fx.call('POST', `/users/${tokens.user.id}/unblock`)).status).toBe(200);
    await expectDead(tokens);
    const again = await passwordLogin(tokens.user.username, GOOD_PASSWORD, 'openid');
    expect(again.status).toBe(200);
    expect((await userinfo(String(again.body.access_token))).status).toBe(200);
  });

  it('DELETE /users/{id}: the tokens are dead', async () => {
    const tokens = await signedInUser();
    expect((await fx.call('DELETE', `/users/${tokens.user.id}`)).status).toBe(204);
    await expectDead(tokens);
  });
});
