import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenResource } from '#shared/oauth/oauth-deps.ts';
import { TENANT_ADMIN_SCOPES } from '#shared/rbac/tenant-admin-scopes.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type TenantsFixture, tenantsFixture } from '../support/management/tenants-fixture.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';

/**
 * A tenant admin's management-API token end to end (docs/contract.md §4, §7.7, §8; docs/tenants.md
 * "Tenant admins"), multi-tenant mode: the user signs in (password grant, through openid-client)
 * with a client of its own tenant linked to the management API; the token, verified with jose
 * against /jwks, carries every management scope but create:tenants / delete:tenants, and works in
 * its tenant only.
 */
let fx: TenantsFixture;
let api: TokenResource;
let jwks: ReturnType<typeof createRemoteJWKSet>;
let tenant: Record<string, any>;
let other: Record<string, any>;
let rp: client.Configuration;
let rpId: string;

const audience = () => fx.svc.managementAudience;
const EVERY_SCOPE = () => Object.values(api.scope_names).sort();
const inTenant = (t: Record<string, any>) => ({ tenant_id: t.id });

beforeAll(async () => {
  fx = await tenantsFixture();
  api = (await oauthDeps(fx.svc.stack.runtime).findResource(DEFAULT_TENANT_ID, audience()))!;
  jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
  tenant = await fx.createTenantApi();
  other = await fx.createTenantApi();
  // A confidential client of the tenant, allowed the password grant, linked to the management API.
  const made = await fx.createClient({
    tenant_id: tenant.id,
    is_global: false,
    client_metadata: { grant_types: ['password', 'refresh_token'] },
  });
  rpId = made.id;
  expect((await fx.call('POST', `/clients/${rpId}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
  rp = await client.discovery(new URL(fx.svc.url), rpId, undefined, client.ClientSecretBasic(made.client_secret), {
    execute: [client.allowInsecureRequests],
  });
});
afterAll(async () => fx?.stop());

/** A user of `t` with a username and a password. */
async function loginUser(t: Record<string, any>): Promise<Record<string, any> & { username: string }> {
  const username = `u-${randomUUID().slice(0, 8)}`;
  const user = await fx.createUser({ username, password: GOOD_PASSWORD }, inTenant(t));
  return { ...user, username };
}

/** The password grant through the tenant's client, asking for every management scope (and `extra`); the token verified with jose. */
async function signIn(username: string, extra: readonly string[] = []) {
  const tokens = await client.genericGrantRequest(rp, 'password', {
    username,
    password: GOOD_PASSWORD,
    audience: audience(),
    scope: [...EVERY_SCOPE(), ...extra].join(' '),
  });
  return { ...(await verified(tokens.access_token)), refreshToken: tokens.refresh_token };
}

/** An access token checked with jose against /jwks (RFC 9068), and its scopes sorted. */
async function verified(token: string) {
  const { payload } = await jwtVerify(token, jwks, { issuer: fx.svc.url, audience: audience(), typ: 'at+jwt' });
  return {
    token,
    payload,
    scopes: String(payload.scope ?? '')
      .split(' ')
      .filter(Boolean)
      .sort(),
  };
}

const makeAdmin = async (userId: string) =>
  expect((await fx.call('POST', `/tenants/${tenant.id}/admins`, { body: { users: [userId] } })).status).toBe(204);

describe("a tenant admin's management token", () => {
  it('carries every management scope but create:tenants and delete:tenants; tenant_id is its tenant', async () => {
    const admin = await loginUser(tenant);
    // Before: an ordinary user of the tenant gets no management scope.
    expect((await signIn(admin.username)).scopes).toEqual([]);
    await makeAdmin(admin.id);
    const { payload, scopes } = await signIn(admin.username);
    expect(scopes).toEqual([...TENANT_ADMIN_SCOPES].sort());
    expect(scopes).not.toContain('create:tenants');
    expect(scopes).not.toContain('delete:tenants');
    expect(EVERY_SCOPE().filter((s) => !scopes.includes(s))).toEqual(['create:tenants', 'delete:tenants']);
    expect(payload).toMatchObject({ sub: admin.id, client_id: rpId, tenant_id: tenant.id });
  });

  it('works in its tenant only: own users 200, another tenant 404, a tenant_id header of another tenant 403, creating or deleting a tenant 403', async () => {
    const admin = await loginUser(tenant);
    await makeAdmin(admin.id);
    const colleague = await loginUser(tenant);
    const stranger = await loginUser(other);
    const { token } = await signIn(admin.username);

    const users = await fx.call('GET', '/users?limit=100', { token });
    expect(users.status).toBe(200);
    const ids = users.body.items.map((u: any) => u.id);
    expect(ids).toEqual(expect.arrayContaining([admin.id, colleague.id]));
    expect(ids).not.toContain(stranger.id);
    expect(users.body.items.every((u: any) => u.tenant_id === tenant.id)).toBe(true);
    const mine = await fx.call('GET', `/users/${colleague.id}`, { token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: colleague.id, tenant_id: tenant.id });

    const theirs = await fx.call('GET', `/users/${stranger.id}`, { token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ code: 'not_found', message: 'User not found.' });
    const patched = await fx.call('PATCH', `/users/${stranger.id}`, { token, body: { name: 'taken over' } });
    expect(patched.status).toBe(404);
    expect((await fx.item(keys.user(stranger.id)))?.name).toBeUndefined();
    expect((await fx.call('GET', `/tenants/${other.id}`, { token })).status).toBe(404);

    const header = await fx.call('GET', '/users', { token, headers: inTenant(other) });
    expect(header.status).toBe(403);
    expect(header.body).toEqual({ code: 'forbidden', message: 'header.tenant_id: a user may only act on its own tenant.' });

    const created = await fx.call('POST', '/tenants', { token, body: { tenant_name: `by-admin-${randomUUID()}` } });
    expect(created.status).toBe(403);
    expect(created.body.code).toBe('insufficient_scope');
    const deleted = await fx.call('DELETE', `/tenants/${tenant.id}`, { token });
    expect(deleted.status).toBe(403);
    expect(await fx.tenantItem(tenant.id)).toBeDefined();
  });

  it('cannot pass on what it lacks (no escalation), but may make another user of its tenant an admin', async () => {
    const admin = await loginUser(tenant);
    await makeAdmin(admin.id);
    const { token } = await signIn(admin.username);
    const ids = new Map(Object.entries(api.scope_names).map(([id, name]) => [name, id]));
    const grant = { permissions: [{ resource_id: api.id, scopes: [ids.get('create:tenants')!] }] };

    const self = await fx.call('POST', `/users/${admin.id}/permissions`, { token, body: grant });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({ code: 'insufficient_scope', message: 'The access token lacks the scope create:tenants.' });
    expect(await fx.item(keys.userPermission(admin.id, api.id, ids.get('create:tenants')!))).toBeUndefined();

    const next = await loginUser(tenant);
    const added = await fx.call('POST', `/tenants/${tenant.id}/admins`, { token, body: { users: [next.id] } });
    expect(added.status, JSON.stringify(added.body)).toBe(204);
    expect((await fx.item(keys.user(next.id)))?.tenant_admin).toBe(true);
    expect((await signIn(next.username)).scopes).toEqual([...TENANT_ADMIN_SCOPES].sort());
  });

  it('create:tenants and delete:tenants granted to it anyway still do not let it create or delete tenants (403)', async () => {
    const admin = await loginUser(tenant);
    await makeAdmin(admin.id);
    const ids = new Map(Object.entries(api.scope_names).map(([id, name]) => [name, id]));
    const grant = { permissions: [{ resource_id: api.id, scopes: [ids.get('create:tenants')!, ids.get('delete:tenants')!] }] };
    expect((await fx.call('POST', `/users/${admin.id}/permissions`, { body: grant, headers: inTenant(tenant) })).status).toBe(204);
    const { token, scopes } = await signIn(admin.username);
    expect(scopes).toEqual(EVERY_SCOPE());

    const name = `by-admin-${randomUUID()}`;
    const created = await fx.call('POST', '/tenants', { token, body: { tenant_name: name } });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ code: 'forbidden', message: 'Only a global client may create or delete tenants.' });
    expect(await fx.item(keys.marker('TENANT_NAME', name))).toBeUndefined();
    for (const id of [tenant.id, other.id]) {
      const deleted = await fx.call('DELETE', `/tenants/${id}`, { token });
      expect(deleted.status, id).toBe(403);
      expect(await fx.tenantItem(id)).toBeDefined();
    }
  });

  it('removed as admin: a new token carries no management scope, nor does a refresh, and the old token stops working', async () => {
    const admin = await loginUser(tenant);
    await makeAdmin(admin.id);
    const before = await signIn(admin.username, ['offline_access']);
    expect(before.scopes).toEqual([...TENANT_ADMIN_SCOPES, 'offline_access'].sort());
    expect(before.refreshToken).toEqual(expect.any(String));
    expect((await fx.call('GET', '/users', { token: before.token })).status).toBe(200);

    const removed = await fx.call('DELETE', `/tenants/${tenant.id}/admins`, { body: { users: [admin.id] } });
    expect(removed.status).toBe(204);
    expect((await fx.item(keys.user(admin.id)))?.tenant_admin).toBeUndefined();
    const after = await signIn(admin.username);
    expect(after.scopes).toEqual([]);
    const refreshed = await client.refreshTokenGrant(rp, before.refreshToken!);
    expect((await verified(refreshed.access_token)).scopes).toEqual(['offline_access']);
    // The management API checks what the user holds now (held-scopes.ts), not the token's claim.
    const old = await fx.call('GET', '/users', { token: before.token });
    expect(old.status).toBe(403);
    expect(old.body.code).toBe('insufficient_scope');
  });
});
