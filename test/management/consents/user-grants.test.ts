import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { consentsRepository } from '#shared/store/sessions/consents-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';
import { loginClient, storedItem, tokenRequest } from '../../support/oauth/login-grants.ts';

/**
 * `GET /users/{user_id}/grants` and `DELETE /users/{user_id}/grants/{grant_id}` (docs/contract.md §6;
 * docs/browser-flows.md "User Grants"): a §3 list, scopes, tenancy, and withdrawing consent
 * revoking that client's refresh tokens of the user (checked with real tokens at /token and
 * /introspect).
 */
let fx: UsersFixture;
let tenantB: string;
let boundToken: string;

beforeAll(async () => {
  fx = await usersFixture({ MULTI_TENANT: 'true' });
  tenantB = await fx.createTenant('grants-b');
  const bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  boundToken = await fx.clientToken(bound, 'read:grants delete:grants read:users');
});
afterAll(async () => fx?.stop());

const repo = () => {
  const { runtime } = fx.svc.stack;
  return consentsRepository(runtime.db, runtime.config.tableName, runtime.now, oauthDeps(runtime).refreshTokens);
};

describe('GET /users/{user_id}/grants', () => {
  it("lists the user's grants as a §3 list: fields, sort, limit, total_count; null resource for /userinfo grants", async () => {
    const user = await fx.createUser();
    const a = await fx.createClient();
    const b = await fx.createClient();
    const api = await fx.createResource(['read']);
    const g1 = await repo().saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: a.id,
      resourceId: api.id,
      scopes: ['read', 'openid'],
    });
    const g2 = await repo().saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: b.id,
      resourceId: null,
      scopes: ['openid'],
    });
    const res = await fx.call('GET', `/users/${user.id}/grants?total_count=true`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_count: 2, count: 2, has_more: false, limit: 10, offset: 0 });
    expect(res.body.items).toEqual([g1, g2].map((g) => ({ ...g })));
    expect(res.body.items[1].resource_id).toBeNull();
    const picked = await fx.call('GET', `/users/${user.id}/grants?fields=id,client_id&sort=created_at:desc&limit=1`);
    expect(picked.status).toBe(200);
    expect(picked.body.items).toEqual([{ id: g2.id, client_id: b.id }]);
    expect(picked.body.has_more).toBe(true);
    const filtered = await fx.call('GET', `/users/${user.id}/grants?q=${encodeURIComponent(`(client_id=${a.id})`)}`);
    expect(filtered.body.items.map((g: any) => g.id)).toEqual([g1.id]);
    expect((await fx.call('GET', `/users/${user.id}/grants?fields=nope`)).status).toBe(400);
    expect((await fx.call('GET', `/users/${user.id}/grants?limit=0`)).status).toBe(400);
  });

  it('needs read:grants (403 insufficient_scope); an unknown user is 404', async () => {
    const user = await fx.createUser();
    const token = await fx.svc.managementToken('read:users');
    const res = await fx.call('GET', `/users/${user.id}/grants`, { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect((await fx.call('GET', '/users/019b0000-0000-7000-8000-00000000beef/grants')).status).toBe(404);
    expect((await fx.call('GET', '/users/not-a-uuid/grants')).status).toBe(400);
  });
});

describe('DELETE /users/{user_id}/grants/{grant_id}', () => {
  it("withdraws consent: 204, the grant is gone, that client's refresh tokens of the user are refused and its access tokens inactive; other clients' stay", async () => {
    const user = await fx.createUser({ username: `grant_user_${Date.now()}`, password: 'correct-Horse-battery-9137' });
    const withdrawn = await loginClient(fx.svc, ['password', 'refresh_token']);
    const kept = await loginClient(fx.svc, ['password', 'refresh_token']);
    const login = (auth: string) =>
      tokenRequest(fx.svc, auth, 'password', {
        username: user.username,
        password: 'correct-Horse-battery-9137',
        scope: 'openid offline_access',
      });
    const [t1, t2] = [await login(withdrawn.auth), await login(kept.auth)];
    expect(t1.status).toBe(200);
    expect(t2.status).toBe(200);
    const grant = await repo().saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: withdrawn.clientId,
      resourceId: null,
      scopes: ['openid', 'offline_access'],
    });
    await repo().saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: kept.clientId,
      resourceId: null,
      scopes: ['openid'],
    });

    const res = await fx.call('DELETE', `/users/${user.id}/grants/${grant.id}`);
    expect(res.status).toBe(204);
    expect(await storedItem(fx.svc, keys.consent(user.id, withdrawn.clientId, null))).toBeUndefined();
    expect(await storedItem(fx.svc, keys.consent(user.id, kept.clientId, null))).toMatchObject({
      type: 'UserGrant',
      user_id: user.id,
      client_id: kept.clientId,
      scopes: new Set(['openid']),
    });

    const refused = await tokenRequest(fx.svc, withdrawn.auth, 'refresh_token', { refresh_token: t1.body.refresh_token as string });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    const introspect = await fetch(`${fx.svc.url}/introspect`, {
      method: 'POST',
      headers: { authorization: withdrawn.auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t1.body.access_token as string }),
    });
    expect(await introspect.json()).toEqual({ active: false });
    const refreshed = await tokenRequest(fx.svc, kept.auth, 'refresh_token', { refresh_token: t2.body.refresh_token as string });
    expect(refreshed.status).toBe(200);

    expect((await fx.call('DELETE', `/users/${user.id}/grants/${grant.id}`)).status).toBe(404);
  });

  it('needs delete:grants (403, nothing changes); a grant of another user is 404', async () => {
    const user = await fx.createUser();
    const other = await fx.createUser();
    const c = await fx.createClient();
    const grant = await repo().saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: c.id,
      resourceId: null,
      scopes: ['openid'],
    });
    const token = await fx.svc.managementToken('read:grants');
    expect((await fx.call('DELETE', `/users/${user.id}/grants/${grant.id}`, { token })).status).toBe(403);
    expect((await fx.call('DELETE', `/users/${other.id}/grants/${grant.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/users/${user.id}/grants/not-a-uuid`)).status).toBe(400);
    expect(await repo().findConsent(user.id, c.id, null)).toEqual(grant);
  });

  it("tenancy: a tenant-bound caller sees and deletes its tenant's grants; another tenant's user is 404 and nothing changes", async () => {
    const mine = await fx.createUser({ tenant_id: tenantB });
    const theirs = await fx.createUser();
    const c = await fx.createClient();
    const g1 = await repo().saveConsent({ userId: mine.id, tenantId: tenantB, clientId: c.id, resourceId: null, scopes: ['openid'] });
    const g2 = await repo().saveConsent({
      userId: theirs.id,
      tenantId: theirs.tenant_id,
      clientId: c.id,
      resourceId: null,
      scopes: ['openid'],
    });
    const listed = await fx.call('GET', `/users/${mine.id}/grants`, { token: boundToken });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((g: any) => g.id)).toEqual([g1.id]);
    expect((await fx.call('GET', `/users/${theirs.id}/grants`, { token: boundToken })).status).toBe(404);
    expect((await fx.call('DELETE', `/users/${theirs.id}/grants/${g2.id}`, { token: boundToken })).status).toBe(404);
    expect(await repo().findConsent(theirs.id, c.id, null)).toEqual(g2);
    expect((await fx.call('DELETE', `/users/${mine.id}/grants/${g1.id}`, { token: boundToken })).status).toBe(204);
  });
});
