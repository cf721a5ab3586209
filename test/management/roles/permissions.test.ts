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
const permissionItems = async (roleId: string) =>
  (await fx.partition(keys.rolePartition(roleId))).filter((i) => i.type === 'RolePermission').map((i) => `${i.resource_id}#${i.scope_id}`);

describe('Role permissions over HTTP (docs/contract.md §6)', () => {
  it("grant: 204; listed; the role keeps token_grants, its count and the scopes' holder counts in the same transaction", async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['read', 'write', 'admin']);
    const res = await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('read'), api.scope('write')]) });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const list = await fx.call('GET', `/roles/${role.id}/permissions`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: any) => p.scope_id).sort()).toEqual([api.scope('read'), api.scope('write')].sort());
    expect(list.body.items[0]).toMatchObject({
      role_id: role.id,
      resource_id: api.id,
      tenant_id: DEFAULT_TENANT,
      created_by: fx.svc.clientId,
    });
    const expanded = await fx.call('GET', `/roles/${role.id}/permissions?expand=all`);
    expect(expanded.body.items[0].resource_data.id).toBe(api.id);
    expect(expanded.body.items[0].scope_data.id).toBe(expanded.body.items[0].scope_id);
    const item = await fx.roleItem(role.id);
    expect(item?.token_grants).toEqual({ [api.id]: { [api.scope('read')]: true, [api.scope('write')]: true } });
    expect(item?.aggregations.permissions).toBe(2);
    expect(item?.token_grants_version).toBe(item?.links_version);
    const resource = await fx.item(keys.resource(api.id));
    expect(resource?.scope_holders[api.scope('read')]).toBe(1);
    // A second grant on the same resource extends the entry.
    expect((await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('admin')]) })).status).toBe(204);
    expect(Object.keys((await fx.roleItem(role.id))?.token_grants[api.id]).length).toBe(3);
    expect((await fx.call('GET', `/roles/${role.id}`)).body.aggregations).toEqual({ permissions: 3, members: 0 });
  });

  it('link rules: 51 ids 400 before existence; unknown resource 404; foreign scope 400; existing 409; nothing changes on failure', async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['a', 'b']);
    const other = await fx.createResource(['x']);
    expect((await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('a')]) })).status).toBe(204);
    const before = await fx.roleItem(role.id);
    const tooMany = await fx.call('POST', `/roles/${role.id}/permissions`, {
      body: perms(
        UNKNOWN_ID,
        Array.from({ length: 51 }, () => randomUUID()),
      ),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('body.permissions');
    const unknown = await fx.call('POST', `/roles/${role.id}/permissions`, {
      body: {
        permissions: [
          { resource_id: api.id, scopes: [api.scope('b')] },
          { resource_id: UNKNOWN_ID, scopes: [UNKNOWN_ID] },
        ],
      },
    });
    expect(unknown.status).toBe(404);
    const foreign = await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('b'), other.scope('x')]) });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('body.permissions');
    const existing = await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('b'), api.scope('a')]) });
    expect(existing.status).toBe(409);
    const missing = await fx.call('DELETE', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('a'), api.scope('b')]) });
    expect(missing.status).toBe(404);
    expect(await permissionItems(role.id)).toEqual([`${api.id}#${api.scope('a')}`]);
    const after = await fx.roleItem(role.id);
    expect(after).toEqual(before);
    expect((await fx.call('POST', `/roles/${UNKNOWN_ID}/permissions`, { body: perms(api.id, [api.scope('b')]) })).status).toBe(404);
  });

  it('revoke: 204; the last scope of a resource removes its token_grants entry', async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['a', 'b']);
    await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('a'), api.scope('b')]) });
    expect((await fx.call('DELETE', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('a')]) })).status).toBe(204);
    expect((await fx.roleItem(role.id))?.token_grants).toEqual({ [api.id]: { [api.scope('b')]: true } });
    expect((await fx.call('DELETE', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('b')]) })).status).toBe(204);
    const item = await fx.roleItem(role.id);
    expect(item?.token_grants).toEqual({});
    expect(item?.aggregations.permissions).toBe(0);
    expect(await permissionItems(role.id)).toEqual([]);
    expect((await fx.item(keys.resource(api.id)))?.scope_holders[api.scope('a')]).toBe(0);
  });

  it("deleting a scope also removes the roles' permissions on it (and their token_grants entries)", async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['keep', 'drop']);
    await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(api.id, [api.scope('keep'), api.scope('drop')]) });
    const del = await fx.call('DELETE', `/resources/${api.id}/scopes/${api.scope('drop')}`);
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect(await permissionItems(role.id)).toEqual([`${api.id}#${api.scope('keep')}`]);
    const item = await fx.roleItem(role.id);
    expect(item?.token_grants).toEqual({ [api.id]: { [api.scope('keep')]: true } });
    expect(item?.aggregations.permissions).toBe(1);
    expect(item?.token_grants_version).toBe(item?.links_version);
  });

  it("deleting a resource also removes the roles' permissions on its scopes", async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['a', 'b']);
    const kept = await fx.createResource(['k']);
    await fx.call('POST', `/roles/${role.id}/permissions`, {
      body: {
        permissions: [
          { resource_id: api.id, scopes: [api.scope('a'), api.scope('b')] },
          { resource_id: kept.id, scopes: [kept.scope('k')] },
        ],
      },
    });
    const del = await fx.call('DELETE', `/resources/${api.id}`);
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect(await permissionItems(role.id)).toEqual([`${kept.id}#${kept.scope('k')}`]);
    const item = await fx.roleItem(role.id);
    expect(item?.token_grants).toEqual({ [kept.id]: { [kept.scope('k')]: true } });
    expect(item?.aggregations.permissions).toBe(1);
  });

  it('no escalation: granting management-API scopes needs the caller to hold each (403 insufficient_scope, nothing stored)', async () => {
    const { runtime } = fx.svc.stack;
    const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
    const scopeId = (name: string) => Object.entries(api!.scope_names).find(([, n]) => n === name)![0];
    const role = await fx.createRole();
    const caller = await fx.createClient({ client_name: 'role editor' });
    const token = await fx.clientToken(caller, 'update:roles read:roles');
    const denied = await fx.call('POST', `/roles/${role.id}/permissions`, { token, body: perms(api!.id, [scopeId('delete:users')]) });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('insufficient_scope');
    expect(denied.body.message).toContain('delete:users');
    expect(await permissionItems(role.id)).toEqual([]);
    // A scope it holds it may pass on.
    const ok = await fx.call('POST', `/roles/${role.id}/permissions`, { token, body: perms(api!.id, [scopeId('read:roles')]) });
    expect(ok.status).toBe(204);
    expect(await permissionItems(role.id)).toEqual([`${api!.id}#${scopeId('read:roles')}`]);
  });

  it("another tenant's resource is 404", async () => {
    const tenant = await fx.createTenant('perm-b');
    const foreign = await fx.createResource(['s'], { tenant_id: tenant });
    const role = await fx.createRole();
    const res = await fx.call('POST', `/roles/${role.id}/permissions`, { body: perms(foreign.id, [foreign.scope('s')]) });
    expect(res.status).toBe(404);
    expect(await permissionItems(role.id)).toEqual([]);
  });
});
