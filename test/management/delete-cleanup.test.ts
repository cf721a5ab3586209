import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { groupsRepository } from '#shared/store/rbac/groups-repository.ts';
import { rolesRepository } from '#shared/store/rbac/roles-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { type GroupsFixture, groupsFixture } from '../support/management/groups-fixture.ts';
import { crashingDb } from '../support/store/crashing-db.ts';

/**
 * docs/data-model.md §4: deleting a user, a role or a group removes its links and the mirrors and
 * counts on their far ends, in bounded pages; a delete interrupted between two pages (the container
 * stops: crashing-db.ts) is finished by the next DELETE of the id (a 404), without losing a link or
 * moving a count twice. Each test asserts the stored state on every far end.
 */
let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

const table = () => fx.svc.stack.runtime.config.tableName;
const db = () => fx.svc.stack.runtime.db;
const now = () => new Date();

async function itemsOf(pk: string) {
  const out = await db().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}
const index2 = async (gsi2pk: string) =>
  (
    await db().send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'GSI2',
        KeyConditionExpression: 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': gsi2pk },
      }),
    )
  ).Items ?? [];

async function createRole() {
  const res = await fx.call('POST', '/roles', { body: { role_name: `role ${Date.now()} ${Math.random()}` } });
  expect(res.status).toBe(201);
  return res.body as Record<string, any>;
}
const ok = async (p: Promise<{ status: number; body: unknown }>) => {
  const res = await p;
  expect(res.status, JSON.stringify(res.body)).toBe(204);
};
const perms = (resource_id: string, scopes: string[]) => ({ permissions: [{ resource_id, scopes }] });

/** A user with 2 groups, 2 roles and 2 direct permissions, each far end shared with `other`. */
async function userWithLinks() {
  const [user, other] = [await fx.createUser(), await fx.createUser()];
  const groups = [await fx.createGroup(), await fx.createGroup()];
  const roles = [await createRole(), await createRole()];
  const api = await fx.createResource(['a', 'b']);
  await ok(fx.call('POST', `/users/${user.id}/groups`, { body: { groups: groups.map((g) => g.id) } }));
  await ok(fx.call('POST', `/users/${other.id}/groups`, { body: { groups: [groups[0]!.id] } }));
  await ok(fx.call('POST', `/users/${user.id}/roles`, { body: { roles: roles.map((r) => r.id) } }));
  await ok(fx.call('POST', `/users/${other.id}/roles`, { body: { roles: [roles[0]!.id] } }));
  await ok(fx.call('POST', `/users/${user.id}/permissions`, { body: perms(api.id, [api.scope('a'), api.scope('b')]) }));
  await ok(fx.call('POST', `/users/${other.id}/permissions`, { body: perms(api.id, [api.scope('a')]) }));
  return { user, other, groups, roles, api };
}

/** Everything a deleted user leaves must be gone, and the far ends count only `other`. */
async function expectUserCleaned({ user, other, groups, roles, api }: Awaited<ReturnType<typeof userWithLinks>>) {
  expect(await itemsOf(keys.userPartition(user.id))).toEqual([]);
  expect(await index2(keys.userGroups(user.id))).toEqual([]);
  expect(await index2(keys.userRoles(user.id))).toEqual([]);
  for (const g of groups) expect(await fx.storedItem(keys.groupMember(g.id, user.id))).toBeUndefined();
  expect((await fx.storedGroup(groups[0]!.id))?.aggregations.members).toBe(1);
  expect((await fx.storedGroup(groups[1]!.id))?.aggregations.members).toBe(0);
  expect((await fx.call('GET', `/groups/${groups[0]!.id}/members`)).body.items.map((l: any) => l.user_id)).toEqual([other.id]);
  expect((await fx.call('GET', `/roles/${roles[0]!.id}`)).body.aggregations.members).toBe(1);
  expect((await fx.call('GET', `/roles/${roles[1]!.id}`)).body.aggregations.members).toBe(0);
  const resource = await fx.storedItem(keys.resource(api.id));
  expect(resource?.scope_holders).toEqual({ [api.scope('a')]: 1, [api.scope('b')]: 0 });
  // The other user keeps everything.
  const kept = await fx.storedUser(other.id);
  expect(kept?.aggregations).toEqual({ roles: 1, groups: 1, permissions: 1 });
  expect(kept?.token_grants).toEqual({ [api.id]: { [api.scope('a')]: true } });
}

describe('cleanup on delete (docs/data-model.md §4)', () => {
  it('DELETE /users/{id}: its group-member, role-member and direct-permission links go, with the counts on their far ends', async () => {
    const world = await userWithLinks();
    await ok(fx.call('DELETE', `/users/${world.user.id}`));
    await expectUserCleaned(world);
    // A second DELETE is a 404 that changes nothing (nothing is removed or counted twice).
    expect((await fx.call('DELETE', `/users/${world.user.id}`)).status).toBe(404);
    await expectUserCleaned(world);
  });

  it('an interrupted user delete is finished by the next DELETE, nothing lost or counted twice', async () => {
    const world = await userWithLinks();
    // Step 1 and the role-link page commit; the container stops before the group links.
    const crashed = usersRepository(crashingDb(db(), 2), table(), now);
    await expect(crashed.delete(world.user.id)).rejects.toThrow(/simulated crash/);
    expect(await fx.storedUser(world.user.id)).toBeUndefined();
    expect(await index2(keys.userRoles(world.user.id))).toEqual([]);
    expect(await fx.storedItem(keys.groupMember(world.groups[0]!.id, world.user.id))).toMatchObject({
      type: 'GroupMember',
      group_id: world.groups[0]!.id,
      user_id: world.user.id,
    });
    expect((await fx.storedGroup(world.groups[0]!.id))?.aggregations.members).toBe(2);
    expect((await fx.call('DELETE', `/users/${world.user.id}`)).status).toBe(404);
    await expectUserCleaned(world);
  });

  it("DELETE /roles/{id}: its group-role links go with the groups' role_ids and counts; its members' role_ids too", async () => {
    const role = await createRole();
    const kept = await createRole();
    const groups = [await fx.createGroup(), await fx.createGroup()];
    const u = await fx.createUser();
    for (const g of groups) await ok(fx.call('POST', `/groups/${g.id}/roles`, { body: { roles: [role.id, kept.id] } }));
    await ok(fx.call('POST', `/roles/${role.id}/members`, { body: { users: [u.id] } }));
    // Interrupted right after the record went (before any sweep page), then finished by a DELETE.
    await expect(rolesRepository(crashingDb(db(), 1), table(), now).delete(role.id)).rejects.toThrow(/simulated crash/);
    expect(await fx.storedItem(keys.role(role.id))).toBeUndefined();
    expect(await fx.storedItem(keys.groupRole(groups[0]!.id, role.id))).toMatchObject({
      type: 'GroupRole',
      group_id: groups[0]!.id,
      role_id: role.id,
    });
    expect((await fx.call('DELETE', `/roles/${role.id}`)).status).toBe(404);
    for (const g of groups) {
      const stored = await fx.storedGroup(g.id);
      expect(stored?.role_ids).toEqual({ [kept.id]: true });
      expect(stored?.aggregations.roles).toBe(1);
      expect(await fx.storedItem(keys.groupRole(g.id, role.id))).toBeUndefined();
      expect((await fx.call('GET', `/groups/${g.id}/roles`)).body.items.map((l: any) => l.role_id)).toEqual([kept.id]);
    }
    expect(await index2(keys.roleGroups(role.id))).toEqual([]);
    expect(await itemsOf(keys.rolePartition(role.id))).toEqual([]);
    const user = await fx.storedUser(u.id);
    expect(user?.role_ids).toEqual({});
    expect((user?.aggregations as any)?.roles).toBe(0);
    // Once more: nothing moves.
    expect((await fx.call('DELETE', `/roles/${role.id}`)).status).toBe(404);
    expect((await fx.storedGroup(groups[0]!.id))?.aggregations.roles).toBe(1);
  });

  it('DELETE /groups/{id}: members (more than one page), roles and nesting on both sides; an interrupted one finishes, counts exact', async () => {
    const [grand, g, child, grandChild] = [await fx.createGroup(), await fx.createGroup(), await fx.createGroup(), await fx.createGroup()];
    await ok(fx.nest(grand.id, g.id));
    await ok(fx.nest(g.id, child.id));
    await ok(fx.nest(child.id, grandChild.id));
    const role = await createRole();
    await ok(fx.call('POST', `/groups/${g.id}/roles`, { body: { roles: [role.id] } }));
    const users = await Promise.all(Array.from({ length: 30 }, () => fx.createUser()));
    await ok(fx.call('POST', `/groups/${g.id}/members`, { body: { users: users.map((u) => u.id) } }));
    await ok(fx.call('POST', `/groups/${child.id}/members`, { body: { users: [users[0]!.id] } }));
    expect((await fx.storedGroup(grandChild.id))?.ancestor_ids).toEqual({ [grand.id]: true, [g.id]: true, [child.id]: true });
    // The record goes, then one page of 25 member links; the container stops there.
    await expect(groupsRepository(crashingDb(db(), 2), table(), now).delete(g.id)).rejects.toThrow(/simulated crash/);
    expect((await fx.partition(g.id)).filter((i) => i.type === 'GroupMember')).toHaveLength(5);
    expect((await fx.call('DELETE', `/groups/${g.id}`)).status).toBe(404);

    expect(await fx.partition(g.id)).toEqual([]);
    expect(await index2(keys.groupParents(g.id))).toEqual([]);
    expect(await index2(keys.roleGroups(role.id))).toEqual([]);
    for (const u of users) {
      const stored = await fx.storedUser(u.id);
      const expected = u === users[0] ? { [child.id]: true } : {};
      expect(stored?.group_ids).toEqual(expected);
      expect((stored?.aggregations as any)?.groups).toBe(Object.keys(expected).length);
    }
    const [gp, c, gc] = [await fx.storedGroup(grand.id), await fx.storedGroup(child.id), await fx.storedGroup(grandChild.id)];
    expect(await fx.storedItem(keys.groupChild(grand.id, g.id))).toBeUndefined();
    expect(gp?.aggregations.groups).toBe(0);
    expect(gp?.height).toBe(1);
    expect(c?.parent_ids).toEqual({});
    expect(c?.ancestor_ids).toEqual({});
    expect(c?.depth).toBe(1);
    expect(gc?.ancestor_ids).toEqual({ [child.id]: true });
    expect(gc?.depth).toBe(2);
    expect((await fx.call('GET', `/roles/${role.id}`)).body.aggregations.members).toBe(0);
    // The child keeps its own member and link to the grand-child.
    expect(c?.aggregations).toEqual({ members: 1, roles: 0, groups: 1 });
  });
});
