import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type RolesFixture, rolesFixture } from '../../support/management/roles-fixture.ts';

let fx: RolesFixture;
beforeAll(async () => {
  fx = await rolesFixture();
});
afterAll(async () => fx?.stop());

const perms = (resource_id: string, scopes: string[]) => ({ permissions: [{ resource_id, scopes }] });
const grant = (userId: string, body: unknown, token?: string) =>
  fx.call('POST', `/users/${userId}/permissions`, { body, ...(token ? { token } : {}) });
const revoke = (userId: string, body: unknown) => fx.call('DELETE', `/users/${userId}/permissions`, { body });
/** The user's direct permission items as `resource#scope`, sorted. */
const permissionItems = async (userId: string) =>
  (await fx.partition(keys.userPartition(userId)))
    .filter((i) => i.type === 'UserPermission')
    .map((i) => `${i.resource_id}#${i.scope_id}`)
    .sort();
const userItem = (id: string) => fx.item(keys.user(id));

describe('Direct user permissions over HTTP (docs/contract.md §6 /users/{id}/permissions)', () => {
  it("grant: 204; items in the user's partition found by the scope; token_grants, counts and stamp move in the same transaction", async () => {
    const user = await fx.createUser();
    const api = await fx.createResource(['read', 'write', 'admin']);
    const res = await grant(user.id, perms(api.id, [api.scope('read'), api.scope('write')]));
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const link = await fx.item(keys.userPermission(user.id, api.id, api.scope('read')));
    expect(link).toMatchObject({
      type: 'UserPermission',
      GSI2PK: keys.scopeHolders(api.scope('read')),
      GSI2SK: keys.scopeHolder('USER', user.id),
      user_id: user.id,
      resource_id: api.id,
      scope_id: api.scope('read'),
      tenant_id: DEFAULT_TENANT,
      created_by: fx.svc.clientId,
    });
    expect(link?.id).toMatch(/^[0-9a-f-]{36}$/);
    const stored = await userItem(user.id);
    expect(stored?.token_grants).toEqual({ [api.id]: { [api.scope('read')]: true, [api.scope('write')]: true } });
    expect(stored?.token_grants_version).toBe(stored?.links_version);
    expect(stored?.aggregations.permissions).toBe(2);
    expect((await fx.item(keys.resource(api.id)))?.scope_holders[api.scope('read')]).toBe(1);
    // A second grant on the same resource extends the entry; the API shows the count, never the copy.
    expect((await grant(user.id, perms(api.id, [api.scope('admin')]))).status).toBe(204);
    expect(Object.keys((await userItem(user.id))?.token_grants[api.id]).length).toBe(3);
    const shown = (await fx.call('GET', `/users/${user.id}`)).body;
    expect(shown.aggregations.permissions).toBe(3);
    expect(shown.token_grants).toBeUndefined();
    expect(shown.links_version).toBeUndefined();
  });

  it('revoke: 204; the last scope of a resource removes its token_grants entry and the counts go back', async () => {
    const user = await fx.createUser();
    const api = await fx.createResource(['a', 'b']);
    expect((await grant(user.id, perms(api.id, [api.scope('a'), api.scope('b')]))).status).toBe(204);
    expect((await revoke(user.id, perms(api.id, [api.scope('a')]))).status).toBe(204);
    expect((await userItem(user.id))?.token_grants).toEqual({ [api.id]: { [api.scope('b')]: true } });
    expect((await revoke(user.id, perms(api.id, [api.scope('b')]))).status).toBe(204);
    const stored = await userItem(user.id);
    expect(stored?.token_grants).toEqual({});
    expect(stored?.aggregations.permissions).toBe(0);
    expect(stored?.token_grants_version).toBe(stored?.links_version);
    expect(await permissionItems(user.id)).toEqual([]);
    expect((await fx.item(keys.resource(api.id)))?.scope_holders[api.scope('a')]).toBe(0);
  });

  it('link rules: 51 ids 400 before existence; unknown user or resource 404; foreign scope 400; existing 409; missing 404; nothing changes', async () => {
    const user = await fx.createUser();
    const api = await fx.createResource(['a', 'b']);
    const other = await fx.createResource(['x']);
    expect((await grant(user.id, perms(api.id, [api.scope('a')]))).status).toBe(204);
    const before = await userItem(user.id);
    const resourceBefore = await fx.item(keys.resource(api.id));
    const tooMany = await grant(
      user.id,
      perms(
        UNKNOWN_ID,
        Array.from({ length: 51 }, () => randomUUID()),
      ),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('body.permissions');
    const unknown = await grant(user.id, {
      permissions: [
        { resource_id: api.id, scopes: [api.scope('b')] },
        { resource_id: UNKNOWN_ID, scopes: [UNKNOWN_ID] },
      ],
    });
    expect(unknown.status).toBe(404);
    const foreign = await grant(user.id, perms(api.id, [api.scope('b'), other.scope('x')]));
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('body.permissions');
    const existing = await grant(user.id, perms(api.id, [api.scope('b'), api.scope('a')]));
    expect(existing.status).toBe(409);
    const missing = await revoke(user.id, perms(api.id, [api.scope('a'), api.scope('b')]));
    expect(missing.status).toBe(404);
    expect((await grant(UNKNOWN_ID, perms(api.id, [api.scope('b')]))).status).toBe(404);
    expect((await revoke(UNKNOWN_ID, perms(api.id, [api.scope('a')]))).status).toBe(404);
    expect((await grant(user.id, { permissions: [] })).status).toBe(400);
    expect((await grant(user.id, { permissions: [{ resource_id: api.id, scopes: [api.scope('b')], extra: 1 }] })).status).toBe(400);
    // A user without direct permissions yet is not touched either (its copy is made only for a valid body).
    const bare = await fx.createUser();
    const bareBefore = await userItem(bare.id);
    expect((await grant(bare.id, perms(UNKNOWN_ID, [api.scope('a')]))).status).toBe(404);
    expect((await grant(bare.id, perms(api.id, [other.scope('x')]))).status).toBe(400);
    expect(await userItem(bare.id)).toEqual(bareBefore);
    // Nothing of the failed calls landed.
    expect(await permissionItems(user.id)).toEqual([`${api.id}#${api.scope('a')}`]);
    expect(await userItem(user.id)).toEqual(before);
    expect(await fx.item(keys.resource(api.id))).toEqual(resourceBefore);
  });

  it('20 concurrent grants of one permission: exactly one 204, the others 409; one item, counts 1', async () => {
    const user = await fx.createUser();
    const api = await fx.createResource(['race']);
    const answers = await Promise.all(Array.from({ length: 20 }, () => grant(user.id, perms(api.id, [api.scope('race')]))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await permissionItems(user.id)).toEqual([`${api.id}#${api.scope('race')}`]);
    const stored = await userItem(user.id);
    expect(stored?.aggregations.permissions).toBe(1);
    expect(stored?.token_grants).toEqual({ [api.id]: { [api.scope('race')]: true } });
    expect(stored?.token_grants_version).toBe(stored?.links_version);
    expect((await fx.item(keys.resource(api.id)))?.scope_holders[api.scope('race')]).toBe(1);
  });

  it('no escalation: granting management-API scopes needs the caller to hold each (403 insufficient_scope, nothing stored)', async () => {
    const { runtime } = fx.svc.stack;
    const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
    const scopeId = (name: string) => Object.entries(api!.scope_names).find(([, n]) => n === name)![0];
    const user = await fx.createUser();
    const caller = await fx.createClient({ client_name: 'user editor' });
    const token = await fx.clientToken(caller, 'update:users read:users');
    const before = await userItem(user.id);
    const denied = await grant(user.id, perms(api!.id, [scopeId('read:users'), scopeId('delete:users')]), token);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(denied.body.message).toContain('delete:users');
    expect(await permissionItems(user.id)).toEqual([]);
    expect(await userItem(user.id)).toEqual(before);
    // A scope it holds it may pass on.
    const ok = await grant(user.id, perms(api!.id, [scopeId('read:users')]), token);
    expect(ok.status).toBe(204);
    expect(await permissionItems(user.id)).toEqual([`${api!.id}#${scopeId('read:users')}`]);
  });

  it("deleting a scope also removes the users' direct permissions on it (and their token_grants entries)", async () => {
    const user = await fx.createUser();
    const role = await fx.createRole();
    const api = await fx.createResource(['keep', 'drop']);
    expect((await grant(user.id, perms(api.id, [api.scope('keep'), api.scope('drop')]))).status).toBe(204);
    expect((await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('drop')]) })).status).toBe(204);
    const del = await fx.call('DELETE', `/resources/${api.id}/scopes/${api.scope('drop')}`);
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect(await permissionItems(user.id)).toEqual([`${api.id}#${api.scope('keep')}`]);
    const stored = await userItem(user.id);
    expect(stored?.token_grants).toEqual({ [api.id]: { [api.scope('keep')]: true } });
    expect(stored?.aggregations.permissions).toBe(1);
    expect(stored?.token_grants_version).toBe(stored?.links_version);
    // The role's permission on it went in the same delete.
    expect((await fx.roleItem(role.id))?.aggregations.permissions).toBe(0);
    expect((await fx.item(keys.resource(api.id)))?.scope_holders[api.scope('drop')]).toBeUndefined();
  });

  it("deleting a resource also removes the users' direct permissions on its scopes", async () => {
    const user = await fx.createUser();
    const api = await fx.createResource(['a', 'b']);
    const kept = await fx.createResource(['k']);
    const body = {
      permissions: [
        { resource_id: api.id, scopes: [api.scope('a'), api.scope('b')] },
        { resource_id: kept.id, scopes: [kept.scope('k')] },
      ],
    };
    expect((await grant(user.id, body)).status).toBe(204);
    const del = await fx.call('DELETE', `/resources/${api.id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect(await permissionItems(user.id)).toEqual([`${kept.id}#${kept.scope('k')}`]);
    const stored = await userItem(user.id);
    expect(stored?.token_grants).toEqual({ [kept.id]: { [kept.scope('k')]: true } });
    expect(stored?.aggregations.permissions).toBe(1);
    expect(stored?.token_grants_version).toBe(stored?.links_version);
  });

  it("another tenant's user or resource is 404; nothing changes", async () => {
    const multi = await rolesFixture({ MULTI_TENANT: 'true' });
    try {
      const tenantB = await multi.createTenant('perm-users-b');
      const bound = await multi.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
      const token = await multi.clientToken(bound, 'read:users update:users');
      const user = await multi.createUser();
      const myUser = await multi.createUser({ tenant_id: tenantB });
      const api = await multi.createResource(['s']);
      const mine = await multi.createResource(['m'], { tenant_id: tenantB });
      for (const [method, userId, resource] of [
        ['POST', user.id, mine],
        ['DELETE', user.id, mine],
        ['POST', myUser.id, api],
      ] as const) {
        const res = await multi.call(method, `/users/${userId}/permissions`, { token, body: perms(resource.id, [resource.scopes[0]!.id]) });
        expect(res.status, `${method} ${userId}`).toBe(404);
      }
      expect((await multi.partition(keys.userPartition(user.id))).filter((i) => i.type === 'UserPermission')).toEqual([]);
      expect((await multi.partition(keys.userPartition(myUser.id))).filter((i) => i.type === 'UserPermission')).toEqual([]);
      // Its own resource it may grant.
      expect((await multi.call('POST', `/users/${myUser.id}/permissions`, { token, body: perms(mine.id, [mine.scope('m')]) })).status).toBe(
        204,
      );
    } finally {
      await multi.stop();
    }
  });
});
