import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { ROLE_SWEEP_PAGE } from '#shared/store/rbac/role-delete.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type RolesFixture, rolesFixture } from '../../support/management/roles-fixture.ts';

let fx: RolesFixture;
beforeAll(async () => {
  fx = await rolesFixture();
});
afterAll(async () => fx?.stop());

const memberIds = async (roleId: string) =>
  (await fx.partition(keys.rolePartition(roleId)))
    .filter((i) => i.type === 'RoleMember')
    .map((i) => String(i.user_id))
    .sort();
const userItem = (id: string) => fx.item(keys.user(id));

describe('Role members over HTTP: one link seen from both ends (docs/contract.md §6)', () => {
  it('POST /roles/{id}/members: 204; listed from both ends; role_ids and both aggregations move with the link', async () => {
    const role = await fx.createRole();
    const [a, b] = [await fx.createUser(), await fx.createUser()];
    const res = await fx.call('POST', `/roles/${role.id}/members`, { body: { users: [a.id, b.id] } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const members = await fx.call('GET', `/roles/${role.id}/members?expand=all`);
    expect(members.status).toBe(200);
    expect(members.body.items.map((m: any) => m.user_id).sort()).toEqual([a.id, b.id].sort());
    expect(members.body.items[0].user_data.id).toBe(members.body.items[0].user_id);
    const ofA = await fx.call('GET', `/users/${a.id}/roles?expand=all`);
    expect(ofA.status).toBe(200);
    expect(ofA.body.items).toHaveLength(1);
    expect(ofA.body.items[0]).toMatchObject({ role_id: role.id, user_id: a.id, tenant_id: DEFAULT_TENANT });
    expect(ofA.body.items[0].id).toBe(members.body.items.find((m: any) => m.user_id === a.id).id);
    expect(ofA.body.items[0].role_data).toMatchObject({ id: role.id, role_name: role.role_name });
    expect((await userItem(a.id))?.role_ids).toEqual({ [role.id]: true });
    expect((await fx.call('GET', `/users/${a.id}`)).body.aggregations.roles).toBe(1);
    expect((await fx.call('GET', `/roles/${role.id}`)).body.aggregations.members).toBe(2);

    const del = await fx.call('DELETE', `/users/${a.id}/roles`, { body: { roles: [role.id] } });
    expect(del.status).toBe(204);
    expect(await memberIds(role.id)).toEqual([b.id]);
    expect((await userItem(a.id))?.role_ids).toEqual({});
    expect((await fx.call('GET', `/users/${a.id}`)).body.aggregations.roles).toBe(0);
    expect((await fx.call('GET', `/roles/${role.id}`)).body.aggregations.members).toBe(1);
  });

  it('POST /users/{id}/roles adds several roles in one call; DELETE /roles/{id}/members removes from the role side', async () => {
    const user = await fx.createUser();
    const roles = [await fx.createRole(), await fx.createRole(), await fx.createRole()];
    const res = await fx.call('POST', `/users/${user.id}/roles`, { body: { roles: roles.map((r) => r.id) } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(Object.keys((await userItem(user.id))?.role_ids).sort()).toEqual(roles.map((r) => r.id).sort());
    expect((await fx.call('GET', `/users/${user.id}`)).body.aggregations.roles).toBe(3);
    const del = await fx.call('DELETE', `/roles/${roles[1]!.id}/members`, { body: { users: [user.id] } });
    expect(del.status).toBe(204);
    expect(Object.keys((await userItem(user.id))?.role_ids).sort()).toEqual([roles[0]!.id, roles[2]!.id].sort());
  });

  it('link rules: 51 ids 400 before existence; unknown 404; existing 409; missing 404; nothing changes on failure', async () => {
    const role = await fx.createRole();
    const [a, b] = [await fx.createUser(), await fx.createUser()];
    expect((await fx.call('POST', `/roles/${role.id}/members`, { body: { users: [a.id] } })).status).toBe(204);
    const roleBefore = await fx.roleItem(role.id);
    const [aBefore, bBefore] = [await userItem(a.id), await userItem(b.id)];

    const tooMany = await fx.call('POST', `/roles/${role.id}/members`, { body: { users: Array.from({ length: 51 }, () => randomUUID()) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('body.users');
    const tooManyRoles = await fx.call('POST', `/users/${a.id}/roles`, { body: { roles: Array.from({ length: 51 }, () => randomUUID()) } });
    expect(tooManyRoles.status).toBe(400);
    expect((await fx.call('POST', `/roles/${role.id}/members`, { body: { users: [b.id, UNKNOWN_ID] } })).status).toBe(404);
    expect((await fx.call('POST', `/users/${b.id}/roles`, { body: { roles: [role.id, UNKNOWN_ID] } })).status).toBe(404);
    expect((await fx.call('POST', `/roles/${role.id}/members`, { body: { users: [b.id, a.id] } })).status).toBe(409);
    expect((await fx.call('POST', `/users/${a.id}/roles`, { body: { roles: [role.id] } })).status).toBe(409);
    expect((await fx.call('DELETE', `/roles/${role.id}/members`, { body: { users: [a.id, b.id] } })).status).toBe(404);
    expect((await fx.call('DELETE', `/users/${b.id}/roles`, { body: { roles: [role.id] } })).status).toBe(404);
    expect((await fx.call('POST', `/roles/${UNKNOWN_ID}/members`, { body: { users: [b.id] } })).status).toBe(404);
    expect((await fx.call('POST', `/users/${UNKNOWN_ID}/roles`, { body: { roles: [role.id] } })).status).toBe(404);

    expect(await memberIds(role.id)).toEqual([a.id]);
    expect(await fx.roleItem(role.id)).toEqual(roleBefore);
    expect(await userItem(a.id)).toEqual(aBefore);
    // b may have gained an empty role_ids map (ensured before the plan): nothing else.
    const { role_ids, ...bRest } = (await userItem(b.id))!;
    expect(role_ids ?? {}).toEqual({});
    const { role_ids: _none, ...bBeforeRest } = bBefore!;
    expect(bRest).toEqual(bBeforeRest);
  });

  it('20 concurrent adds of one member: exactly one 204, the others 409; one link, counts 1', async () => {
    const role = await fx.createRole();
    const user = await fx.createUser();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? fx.call('POST', `/roles/${role.id}/members`, { body: { users: [user.id] } })
          : fx.call('POST', `/users/${user.id}/roles`, { body: { roles: [role.id] } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await memberIds(role.id)).toEqual([user.id]);
    expect((await fx.roleItem(role.id))?.aggregations.members).toBe(1);
    expect((await userItem(user.id))?.aggregations.roles).toBe(1);
    expect((await userItem(user.id))?.role_ids).toEqual({ [role.id]: true });
  });

  it("deleting a role removes its links and the users' role_ids entries in pages (more links than one transaction holds)", async () => {
    const role = await fx.createRole();
    const api = await fx.createResource(['s1', 's2']);
    expect(
      (
        await fx.call('POST', `/roles/${role.id}/permissions`, {
          body: { permissions: [{ resource_id: api.id, scopes: [api.scope('s1'), api.scope('s2')] }] },
        })
      ).status,
    ).toBe(204);
    const users = await Promise.all(Array.from({ length: 2 * ROLE_SWEEP_PAGE + 5 }, () => fx.createUser()));
    for (let i = 0; i < users.length; i += 50) {
      const res = await fx.call('POST', `/roles/${role.id}/members`, { body: { users: users.slice(i, i + 50).map((u) => u.id) } });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
    }
    expect((await fx.roleItem(role.id))?.aggregations.members).toBe(users.length);
    const del = await fx.call('DELETE', `/roles/${role.id}`);
    expect(del.status).toBe(204);
    expect(await fx.partition(keys.rolePartition(role.id))).toEqual([]);
    for (const u of users.slice(0, 3).concat(users.slice(-3))) {
      const item = await userItem(u.id);
      expect(item?.role_ids).toEqual({});
      expect(item?.aggregations.roles).toBe(0);
    }
    const resource = await fx.item(keys.resource(api.id));
    expect(resource?.scope_holders[api.scope('s1')]).toBe(0);
    expect((await fx.call('GET', `/users/${users[0]!.id}/roles`)).body.items).toEqual([]);
  });

  it("deleting a user removes its role links and the roles' member counts", async () => {
    const roles = [await fx.createRole(), await fx.createRole()];
    const [gone, stays] = [await fx.createUser(), await fx.createUser()];
    expect((await fx.call('POST', `/users/${gone.id}/roles`, { body: { roles: roles.map((r) => r.id) } })).status).toBe(204);
    expect((await fx.call('POST', `/roles/${roles[0]!.id}/members`, { body: { users: [stays.id] } })).status).toBe(204);
    expect((await fx.call('DELETE', `/users/${gone.id}`)).status).toBe(204);
    expect(await memberIds(roles[0]!.id)).toEqual([stays.id]);
    expect(await memberIds(roles[1]!.id)).toEqual([]);
    expect((await fx.call('GET', `/roles/${roles[0]!.id}`)).body.aggregations.members).toBe(1);
    expect((await fx.call('GET', `/roles/${roles[1]!.id}`)).body.aggregations.members).toBe(0);
    expect((await fx.call('GET', `/roles/${roles[1]!.id}/members`)).body.items).toEqual([]);
  });

  it("no escalation: a member link passes the role's management-API scopes on, so the caller must hold them", async () => {
    const { runtime } = fx.svc.stack;
    const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
    const scopeId = (name: string) => Object.entries(api!.scope_names).find(([, n]) => n === name)![0];
    const role = await fx.createRole();
    expect(
      (
        await fx.call('POST', `/roles/${role.id}/permissions`, {
          body: { permissions: [{ resource_id: api!.id, scopes: [scopeId('delete:users')] }] },
        })
      ).status,
    ).toBe(204);
    const user = await fx.createUser();
    const caller = await fx.createClient({ client_name: 'member editor' });
    const token = await fx.clientToken(caller, 'read:roles update:roles read:users update:users');
    for (const [path, body] of [
      [`/roles/${role.id}/members`, { users: [user.id] }],
      [`/users/${user.id}/roles`, { roles: [role.id] }],
    ] as const) {
      const res = await fx.call('POST', path, { token, body });
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.body.message).toContain('delete:users');
    }
    expect(await memberIds(role.id)).toEqual([]);
    // A role without management scopes passes nothing on: the same caller may add it.
    const plain = await fx.createRole();
    expect((await fx.call('POST', `/roles/${plain.id}/members`, { token, body: { users: [user.id] } })).status).toBe(204);
  });
});

describe('Roles and tenants (docs/contract.md §4)', () => {
  it("another tenant's role or user is 404 on every role route; nothing changes", async () => {
    const multi = await rolesFixture({ MULTI_TENANT: 'true' });
    try {
      const tenantB = await multi.createTenant('roles-b');
      const bound = await multi.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
      const token = await multi.clientToken(bound, 'read:roles create:roles update:roles delete:roles read:users update:users');
      const role = await multi.createRole();
      const user = await multi.createUser();
      const api = await multi.createResource(['s']);
      const mine = await multi.createRole({ tenant_id: tenantB });
      const myUser = await multi.createUser({ tenant_id: tenantB });
      for (const [method, path, body] of [
        ['GET', `/roles/${role.id}`, undefined],
        ['PATCH', `/roles/${role.id}`, { role_name: 'hijack' }],
        ['DELETE', `/roles/${role.id}`, undefined],
        ['GET', `/roles/${role.id}/permissions`, undefined],
        ['POST', `/roles/${role.id}/permissions`, { permissions: [{ resource_id: api.id, scopes: [api.scope('s')] }] }],
        ['GET', `/roles/${role.id}/members`, undefined],
        ['POST', `/roles/${role.id}/members`, { users: [myUser.id] }],
        ['POST', `/roles/${mine.id}/members`, { users: [user.id] }],
        ['GET', `/users/${user.id}/roles`, undefined],
        ['POST', `/users/${user.id}/roles`, { roles: [mine.id] }],
        ['POST', `/users/${myUser.id}/roles`, { roles: [role.id] }],
      ] as const) {
        const res = await multi.call(method, path, { token, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      expect((await multi.call('GET', `/roles/${role.id}`)).body).toEqual(role);
      expect((await multi.call('GET', '/roles?limit=100', { token })).body.items.map((r: any) => r.id)).toEqual([mine.id]);
      expect(await multi.partition(keys.rolePartition(mine.id))).toHaveLength(1);
    } finally {
      await multi.stop();
    }
  });
});
