import { randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type GroupsFixture, groupsFixture } from '../support/management/groups-fixture.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';
import { loginClient, tokenRequest } from '../support/oauth/login-grants.ts';

/**
 * End to end over HTTP on DynamoDB Local: permissions that come through a
 * grand-parent group appear in GET /users/{id}/permissions with the right `sources` and in a new
 * token's `permissions` (verified with jose against our JWKS), and disappear once the membership
 * is removed; every other removal (role permission, group role, nesting link, role membership) is
 * reflected in the next token after at most the record-cache TTL (docs/rbac.md "Staleness"); a
 * user's management-API scopes come through RBAC, and the no-escalation rule credits them.
 */
let fx: GroupsFixture;
let jwks: ReturnType<typeof createRemoteJWKSet>;
let auth: string;
let loginClientId: string;
let api: Awaited<ReturnType<GroupsFixture['createResource']>>;
let ttlMs: number;

beforeAll(async () => {
  fx = await groupsFixture();
  jwks = createRemoteJWKSet(new URL(`${fx.svc.url}/.well-known/jwks.json`));
  ({ auth, clientId: loginClientId } = await loginClient(fx.svc, ['password', 'refresh_token']));
  api = await fx.createResource(['read:docs', 'write:docs', 'admin:docs']);
  const rbac = await fx.call('PATCH', `/resources/${api.id}`, { body: { resource_metadata: { rbac_enabled: true } } });
  expect(rbac.status).toBe(200);
  ttlMs = fx.svc.stack.runtime.config.recordCacheTtlMs;
});
afterAll(async () => fx?.stop());

const ok = (res: { status: number; body: unknown }, status = 204) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body as Record<string, any>;
};

const createRole = async () => ok(await fx.call('POST', '/roles', { body: { role_name: `role ${randomUUID()}` } }), 201);
const storedRole = (id: string) => fx.storedItem(keys.role(id));

async function newUser() {
  return fx.createUser({ password: GOOD_PASSWORD });
}

/** A role holding these scopes of the RBAC resource (or of `resourceId`, by id). */
async function roleWith(scopeIds: string[], resourceId = api.id) {
  const role = await createRole();
  ok(await fx.call('POST', `/roles/${role.id}/permissions`, { body: { permissions: [{ resource_id: resourceId, scopes: scopeIds }] } }));
  return role.id as string;
}

/** grand > parent > child, the role on the grand-parent. */
async function chainWithRoleOnTop(roleId: string) {
  const [grand, parent, child] = [await fx.createGroup(), await fx.createGroup(), await fx.createGroup()].map((g) => g.id as string);
  ok(await fx.nest(grand!, parent!));
  ok(await fx.nest(parent!, child!));
  ok(await fx.call('POST', `/groups/${grand}/roles`, { body: { roles: [roleId] } }));
  return { grand: grand!, parent: parent!, child: child! };
}

/** A password-grant token for `audience`, verified with jose against our JWKS; its payload. */
async function tokenOf(user: Record<string, any>, scope: string, audience = api.audience) {
  const res = await tokenRequest(fx.svc, auth, 'password', { username: user.email, password: GOOD_PASSWORD, scope, audience });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { payload } = await jwtVerify(res.body.access_token as string, jwks, {
    issuer: fx.svc.url,
    audience,
    typ: 'at+jwt',
    currentDate: fx.clock.now(),
  });
  return { payload, body: res.body };
}

const permissionsOf = async (userId: string, query = '') => ok(await fx.call('GET', `/users/${userId}/permissions${query}`), 200);

describe('permissions through a grand-parent group', () => {
  it('appear in /users/{id}/permissions with their sources and in a new token, and disappear after the membership is removed', async () => {
    const read = api.scope('read:docs');
    const write = api.scope('write:docs');
    const role = await roleWith([read]);
    const { grand, parent, child } = await chainWithRoleOnTop(role);
    const user = await newUser();
    ok(await fx.call('POST', `/users/${user.id}/groups`, { body: { groups: [child] } }));
    ok(await fx.call('POST', `/users/${user.id}/permissions`, { body: { permissions: [{ resource_id: api.id, scopes: [write] }] } }));

    const list = await permissionsOf(user.id);
    expect(list).toEqual({
      count: 2,
      has_more: false,
      limit: 10,
      offset: 0,
      items: [
        {
          id: read,
          tenant_id: DEFAULT_TENANT_ID,
          user_id: user.id,
          resource_id: api.id,
          scope_id: read,
          sources: [{ type: 'group', id: grand }],
        },
        { id: write, tenant_id: DEFAULT_TENANT_ID, user_id: user.id, resource_id: api.id, scope_id: write, sources: [{ type: 'direct' }] },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    });
    const expanded = await permissionsOf(user.id, '?expand=all');
    for (const item of expanded.items) {
      expect(item.resource_data).toMatchObject({ id: api.id, resource_metadata: { identifier_url: api.audience, rbac_enabled: true } });
      expect(item.scope_data).toMatchObject({ id: item.scope_id, scope_name: item.scope_id === read ? 'read:docs' : 'write:docs' });
    }

    const groups = ok(await fx.call('GET', `/users/${user.id}/groups`), 200);
    expect(groups.items).toEqual([
      { id: grand, tenant_id: DEFAULT_TENANT_ID, user_id: user.id, group_id: grand, direct: false },
      { id: parent, tenant_id: DEFAULT_TENANT_ID, user_id: user.id, group_id: parent, direct: false },
      { id: child, tenant_id: DEFAULT_TENANT_ID, user_id: user.id, group_id: child, direct: true },
    ]);

    const before = await tokenOf(user, 'openid admin:docs read:docs write:docs');
    expect(before.payload).toMatchObject({ sub: user.id, scope: 'openid read:docs write:docs', permissions: ['read:docs', 'write:docs'] });
    expect(before.body.scope).toBe('openid read:docs write:docs');

    ok(await fx.call('DELETE', `/users/${user.id}/groups`, { body: { groups: [child] } }));
    expect((await permissionsOf(user.id)).items.map((i: any) => [i.scope_id, i.sources])).toEqual([[write, [{ type: 'direct' }]]]);
    expect((await fx.call('GET', `/users/${user.id}/groups`)).body.items).toEqual([]);
    // The password grant reads the user consistently: the membership is gone from the next token.
    const after = await tokenOf(user, 'openid admin:docs read:docs write:docs');
    expect(after.payload).toMatchObject({ scope: 'openid write:docs', permissions: ['write:docs'] });
  });

  it('a user holding nothing of an RBAC resource gets a token with no scope of it and an empty `permissions`', async () => {
    const user = await newUser();
    const { payload } = await tokenOf(user, 'openid read:docs');
    expect(payload).toMatchObject({ scope: 'openid', permissions: [] });
    expect((await permissionsOf(user.id)).items).toEqual([]);
  });
});

describe('staleness bound: a removed link is out of the next token after at most RECORD_CACHE_TTL_SECONDS', () => {
  const removals: [
    string,
    (s: { role: string; grand: string; parent: string; child: string; user: string }) => Promise<{ status: number; body: unknown }>,
  ][] = [
    [
      'a role permission revoked',
      ({ role }) =>
        fx.call('DELETE', `/roles/${role}/permissions`, {
          body: { permissions: [{ resource_id: api.id, scopes: [api.scope('read:docs')] }] },
        }),
    ],
    [
      'a role removed from the grand-parent group',
      ({ grand, role }) => fx.call('DELETE', `/groups/${grand}/roles`, { body: { roles: [role] } }),
    ],
    ['the nesting link parent > child removed', ({ parent, child }) => fx.unnest(parent, child)],
    [
      'the user removed from the child group (from the group side)',
      ({ child, user }) => fx.call('DELETE', `/groups/${child}/members`, { body: { users: [user] } }),
    ],
  ];
  for (const [name, remove] of removals) {
    it(`${name}: the management API and the next token of the container that made the change at once (others within the TTL)`, async () => {
      const role = await roleWith([api.scope('read:docs')]);
      const chain = await chainWithRoleOnTop(role);
      const user = await newUser();
      ok(await fx.call('POST', `/groups/${chain.child}/members`, { body: { users: [user.id] } }));
      expect((await tokenOf(user, 'read:docs')).payload.permissions).toEqual(['read:docs']);

      ok(await remove({ role, ...chain, user: user.id }));
      expect((await permissionsOf(user.id)).items).toEqual([]); // consistent reads, no cache
      // The local server is one container: the change dropped its cached roles and groups
      // (forgetRbacRecords) or user (forgetUser), so the clock does not move here. Another
      // container sees it within RECORD_CACHE_TTL_SECONDS, as every cached record.
      const after = await tokenOf(user, 'read:docs');
      expect(after.payload.permissions).toEqual([]);
      expect(after.body.scope).toBe('');
    });
  }

  it('a direct permission revoked (DELETE /users/{id}/permissions): out of the next token', async () => {
    const user = await newUser();
    const body = { permissions: [{ resource_id: api.id, scopes: [api.scope('admin:docs')] }] };
    ok(await fx.call('POST', `/users/${user.id}/permissions`, { body }));
    expect((await permissionsOf(user.id)).items.map((i: any) => i.sources)).toEqual([[{ type: 'direct' }]]);
    expect((await tokenOf(user, 'admin:docs')).payload.permissions).toEqual(['admin:docs']);
    ok(await fx.call('DELETE', `/users/${user.id}/permissions`, { body }));
    expect((await permissionsOf(user.id)).items).toEqual([]);
    fx.clock.advance(ttlMs + 1);
    expect((await tokenOf(user, 'admin:docs')).payload.permissions).toEqual([]);
  });

  it('a direct role removed: the refresh grant (its user read through the 1 s cache) drops the scope within the TTL', async () => {
    const role = await roleWith([api.scope('read:docs')]);
    const user = await newUser();
    ok(await fx.call('POST', `/users/${user.id}/roles`, { body: { roles: [role] } }));
    const first = await tokenOf(user, 'read:docs offline_access');
    expect(first.payload).toMatchObject({ scope: 'read:docs offline_access', permissions: ['read:docs'] });
    ok(await fx.call('DELETE', `/users/${user.id}/roles`, { body: { roles: [role] } }));
    fx.clock.advance(ttlMs + 1);
    const res = await tokenRequest(fx.svc, auth, 'refresh_token', { refresh_token: first.body.refresh_token as string });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { payload } = await jwtVerify(res.body.access_token as string, jwks, { audience: api.audience, currentDate: fx.clock.now() });
    expect(payload).toMatchObject({ sub: user.id, scope: 'offline_access', permissions: [] });
  });
});

describe("management-API scopes through RBAC (a user's token, docs/contract.md §7.1, §8)", () => {
  it('a user gets management scopes from a role of an ancestor group; no escalation credits exactly those; gone after the membership within the TTL', async () => {
    const mgmt = await oauthDeps(fx.svc.stack.runtime).findResource(DEFAULT_TENANT_ID, fx.svc.managementAudience);
    const idOf = new Map(Object.entries(mgmt!.scope_names).map(([id, name]) => [name, id]));
    const role = await roleWith(
      ['read:users', 'read:roles', 'update:roles'].map((n) => idOf.get(n)!),
      mgmt!.id,
    );
    const { child } = await chainWithRoleOnTop(role);
    const user = await newUser();
    ok(await fx.call('POST', `/users/${user.id}/groups`, { body: { groups: [child] } }));
    // User tokens for the management API come only through a client authorized on it.
    ok(await fx.call('POST', `/clients/${loginClientId}/resources`, { body: { resources: [mgmt!.id] } }));

    const { payload, body } = await tokenOf(user, 'read:users read:roles update:roles delete:users', fx.svc.managementAudience);
    expect(payload.scope).toBe('read:users read:roles update:roles');
    expect(payload.permissions).toBeUndefined(); // the management API is RBAC for users but not `rbac_enabled`
    const token = body.access_token as string;
    expect((await fx.call('GET', `/users/${user.id}`, { token })).status).toBe(200);
    expect((await fx.call('GET', '/groups', { token })).status).toBe(403);

    // No escalation (docs/contract.md §8): a scope the user holds through RBAC may be granted, one it lacks may not.
    const target = await createRole();
    const grant = (name: string) =>
      fx.call('POST', `/roles/${target.id}/permissions`, {
        token,
        body: { permissions: [{ resource_id: mgmt!.id, scopes: [idOf.get(name)!] }] },
      });
    const refused = await grant('delete:users');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    expect((await storedRole(target.id))?.token_grants).toEqual({});
    ok(await grant('read:users'));
    expect((await storedRole(target.id))?.token_grants).toEqual({ [mgmt!.id]: { [idOf.get('read:users')!]: true } });

    // The same token stops working once the membership is gone (held-scopes.ts, 1 s caches).
    ok(await fx.call('DELETE', `/users/${user.id}/groups`, { body: { groups: [child] } }));
    fx.clock.advance(ttlMs + 1);
    const after = await fx.call('GET', `/users/${user.id}`, { token });
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('insufficient_scope');
  });
});
