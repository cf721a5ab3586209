import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT } from '../../support/management/clients-fixture.ts';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

/**
 * docs/contract.md §8 "No escalation" on the links that pass a group's roles on: group members (from both
 * ends) and nested groups. A role holding the management-API scope `delete:users` sits on a group;
 * a caller without that scope may not make anyone inherit it.
 */
let fx: GroupsFixture;
let token: string;
/** A role with `delete:users` on the management API (granted by the admin). */
let mighty: string;
/** A role with only a scope the caller holds. */
let modest: string;

beforeAll(async () => {
  fx = await groupsFixture();
  const { runtime } = fx.svc.stack;
  const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
  const scopeId = (name: string) => Object.entries(api!.scope_names).find(([, n]) => n === name)![0];
  const role = async (scope: string) => {
    const res = await fx.call('POST', '/roles', { body: { role_name: `role ${scope} ${Date.now()} ${Math.random()}` } });
    const granted = await fx.call('POST', `/roles/${res.body.id}/permissions`, {
      body: { permissions: [{ resource_id: api!.id, scopes: [scopeId(scope)] }] },
    });
    if (granted.status !== 204) throw new Error(`grant: ${granted.status}`);
    return res.body.id as string;
  };
  mighty = await role('delete:users');
  modest = await role('read:groups');
  const caller = await fx.createClient({ client_name: 'group editor' });
  token = await fx.clientToken(caller, 'read:groups update:groups read:users update:users');
});
afterAll(async () => fx?.stop());

const withRole = async (roleId: string) => {
  const g = await fx.createGroup();
  expect((await fx.call('POST', `/groups/${g.id}/roles`, { body: { roles: [roleId] } })).status).toBe(204);
  return g;
};

/** What a refused membership must leave untouched. */
async function membership(groupId: string, userId: string) {
  const [group, user, link] = await Promise.all([
    fx.storedGroup(groupId),
    fx.storedUser(userId),
    fx.storedItem(keys.groupMember(groupId, userId)),
  ]);
  return { members: group?.aggregations.members, groupIds: user?.group_ids ?? {}, userGroups: (user?.aggregations as any)?.groups, link };
}

function expectRefused(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.code).toBe('insufficient_scope');
  expect(res.body.message).toContain('delete:users');
}

describe('no escalation on group members and nested groups (docs/contract.md §8)', () => {
  it("POST /groups/{id}/members: the group's roles' management scopes need the caller to hold them; nothing written", async () => {
    const g = await withRole(mighty);
    const u = await fx.createUser();
    const before = await membership(g.id, u.id);
    expectRefused(await fx.call('POST', `/groups/${g.id}/members`, { token, body: { users: [u.id] } }));
    expect(await membership(g.id, u.id)).toEqual(before);
    // The admin (holding every management scope) may; the caller may for a group whose roles it holds.
    const plain = await withRole(modest);
    expect((await fx.call('POST', `/groups/${plain.id}/members`, { token, body: { users: [u.id] } })).status).toBe(204);
    expect((await fx.call('POST', `/groups/${g.id}/members`, { body: { users: [u.id] } })).status).toBe(204);
  });

  it("POST /groups/{id}/members: an ANCESTOR's roles count too (a grand-parent's)", async () => {
    const grand = await withRole(mighty);
    const parent = await fx.createGroup();
    const child = await fx.createGroup();
    expect((await fx.nest(grand.id, parent.id)).status).toBe(204);
    expect((await fx.nest(parent.id, child.id)).status).toBe(204);
    const u = await fx.createUser();
    const before = await membership(child.id, u.id);
    expectRefused(await fx.call('POST', `/groups/${child.id}/members`, { token, body: { users: [u.id] } }));
    expect(await membership(child.id, u.id)).toEqual(before);
  });

  it('POST /users/{id}/groups: the same check from the user side, over every group named; nothing written', async () => {
    const g = await withRole(mighty);
    const parent = await withRole(mighty);
    const child = await fx.createGroup();
    expect((await fx.nest(parent.id, child.id)).status).toBe(204);
    const plain = await fx.createGroup();
    const u = await fx.createUser();
    const before = [await membership(g.id, u.id), await membership(plain.id, u.id), await membership(child.id, u.id)];
    expectRefused(await fx.call('POST', `/users/${u.id}/groups`, { token, body: { groups: [plain.id, g.id] } }));
    expectRefused(await fx.call('POST', `/users/${u.id}/groups`, { token, body: { groups: [child.id] } }));
    expect([await membership(g.id, u.id), await membership(plain.id, u.id), await membership(child.id, u.id)]).toEqual(before);
    expect((await fx.call('POST', `/users/${u.id}/groups`, { token, body: { groups: [plain.id] } })).status).toBe(204);
  });

  it("POST /groups/{id}/groups: nesting gives the child's members the parent's and its ancestors' roles; nothing written", async () => {
    const grand = await withRole(mighty);
    const parent = await fx.createGroup();
    expect((await fx.nest(grand.id, parent.id)).status).toBe(204);
    const child = await fx.createGroup();
    const member = await fx.createUser();
    expect((await fx.call('POST', `/groups/${child.id}/members`, { body: { users: [member.id] } })).status).toBe(204);
    const before = [await fx.partition(parent.id), await fx.storedGroup(parent.id), await fx.storedGroup(child.id)];
    for (const p of [grand.id, parent.id]) {
      expectRefused(await fx.call('POST', `/groups/${p}/groups`, { token, body: { groups: [child.id] } }));
    }
    expect([await fx.partition(parent.id), await fx.storedGroup(parent.id), await fx.storedGroup(child.id)]).toEqual(before);
    expect(await fx.storedItem(keys.groupChild(grand.id, child.id))).toBeUndefined();
    // The CHILD's roles pass on to nobody new: nesting a group with a mighty role under a plain one is allowed.
    const plain = await fx.createGroup();
    const strong = await withRole(mighty);
    expect((await fx.call('POST', `/groups/${plain.id}/groups`, { token, body: { groups: [strong.id] } })).status).toBe(204);
    // A parent whose roles the caller holds: allowed.
    const modestParent = await withRole(modest);
    expect((await fx.call('POST', `/groups/${modestParent.id}/groups`, { token, body: { groups: [child.id] } })).status).toBe(204);
  });
});
