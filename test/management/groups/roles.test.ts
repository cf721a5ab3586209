import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

let n = 0;
async function createRole() {
  const res = await fx.call('POST', '/roles', { body: { role_name: `role ${++n} ${Date.now()}` } });
  if (res.status !== 201) throw new Error(`create role: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, any>;
}
const roles = (g: string, ids: string[], method = 'POST') => fx.call(method, `/groups/${g}/roles`, { body: { roles: ids } });

describe('group roles (docs/contract.md §6 /groups/{id}/roles)', () => {
  it("POST: 204, link + the group's role_ids + aggregations in one transaction; members untouched; DELETE undoes it", async () => {
    const g = await fx.createGroup();
    const u = await fx.createUser();
    expect((await fx.call('POST', `/groups/${g.id}/members`, { body: { users: [u.id] } })).status).toBe(204);
    const userBefore = await fx.storedUser(u.id);
    const [r1, r2] = [await createRole(), await createRole()];
    expect((await roles(g.id, [r1.id, r2.id])).status).toBe(204);
    const stored = await fx.storedGroup(g.id);
    expect(Object.keys(stored!.role_ids).sort()).toEqual([r1.id, r2.id].sort());
    expect(stored!.aggregations).toEqual({ members: 1, roles: 2, groups: 0 });
    expect(await fx.storedItem(keys.groupRole(g.id, r1.id))).toMatchObject({
      GSI2PK: keys.roleGroups(r1.id),
      GSI2SK: g.id,
      group_id: g.id,
      role_id: r1.id,
    });
    expect(await fx.storedUser(u.id)).toEqual(userBefore);
    const list = await fx.call('GET', `/groups/${g.id}/roles?expand=all`);
    expect(list.status).toBe(200);
    const item = list.body.items.find((l: any) => l.role_id === r1.id);
    expect(item.role_data).toEqual((await fx.call('GET', `/roles/${r1.id}`)).body);
    expect((await roles(g.id, [r1.id], 'DELETE')).status).toBe(204);
    const after = await fx.storedGroup(g.id);
    expect(Object.keys(after!.role_ids)).toEqual([r2.id]);
    expect(after!.aggregations.roles).toBe(1);
    expect(await fx.storedItem(keys.groupRole(g.id, r1.id))).toBeUndefined();
  });

  it('link rules: 51 ids → 400, unknown → 404, existing → 409, missing → 404; nothing changed', async () => {
    const g = await fx.createGroup();
    const [r1, r2] = [await createRole(), await createRole()];
    const many = Array.from({ length: 51 }, (_, i) => `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`);
    expect((await roles(g.id, many)).status).toBe(400);
    expect((await roles(g.id, [r1.id, UNKNOWN_ID])).status).toBe(404);
    expect((await fx.storedGroup(g.id))!.aggregations.roles).toBe(0);
    expect((await roles(g.id, [r1.id])).status).toBe(204);
    expect((await roles(g.id, [r2.id, r1.id])).status).toBe(409);
    expect(await fx.storedItem(keys.groupRole(g.id, r2.id))).toBeUndefined();
    expect((await roles(g.id, [r1.id, r2.id], 'DELETE')).status).toBe(404);
    expect((await fx.storedGroup(g.id))!.role_ids).toEqual({ [r1.id]: true });
    expect((await roles(UNKNOWN_ID, [r1.id])).status).toBe(404);
    const race = await Promise.all(Array.from({ length: 20 }, () => roles(g.id, [r2.id])));
    expect(race.filter((r) => r.status === 204)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(19);
    expect((await fx.storedGroup(g.id))!.aggregations.roles).toBe(2);
  });

  it('deleting the group removes its role links', async () => {
    const g = await fx.createGroup();
    const r = await createRole();
    expect((await roles(g.id, [r.id])).status).toBe(204);
    expect((await fx.call('DELETE', `/groups/${g.id}`)).status).toBe(204);
    expect(await fx.partition(g.id)).toEqual([]);
  });

  it("no escalation: a group role passes the role's management-API scopes on, so the caller must hold them", async () => {
    const { runtime } = fx.svc.stack;
    const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT_ID, runtime.config.managementAudience);
    const scopeId = Object.entries(api!.scope_names).find(([, n]) => n === 'delete:users')![0];
    const role = await createRole();
    const granted = await fx.call('POST', `/roles/${role.id}/permissions`, {
      body: { permissions: [{ resource_id: api!.id, scopes: [scopeId] }] },
    });
    expect(granted.status).toBe(204);
    const g = await fx.createGroup();
    const caller = await fx.createClient({ client_name: 'group editor' });
    const token = await fx.clientToken(caller, 'read:groups update:groups read:roles');
    const res = await fx.call('POST', `/groups/${g.id}/roles`, { token, body: { roles: [role.id] } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.body.message).toContain('delete:users');
    expect(await fx.storedGroup(g.id)).toMatchObject({ aggregations: { roles: 0 } });
    expect(Object.keys((await fx.storedGroup(g.id))!.role_ids ?? {})).toEqual([]);
    // A role without management scopes passes nothing on: the same caller may add it.
    const plain = await createRole();
    expect((await fx.call('POST', `/groups/${g.id}/roles`, { token, body: { roles: [plain.id] } })).status).toBe(204);
  });
});
