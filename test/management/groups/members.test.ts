import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

const members = (g: string, users: string[], method = 'POST') => fx.call(method, `/groups/${g}/members`, { body: { users } });
const userGroups = (u: string, groups: string[], method = 'POST') => fx.call(method, `/users/${u}/groups`, { body: { groups } });

/** What a membership changes on both ends, as stored. */
async function state(g: string, u: string) {
  const [group, user, link] = await Promise.all([fx.storedGroup(g), fx.storedUser(u), fx.storedItem(keys.groupMember(g, u))]);
  return {
    members: group?.aggregations.members,
    userGroups: (user?.aggregations as any)?.groups,
    mirror: Boolean((user?.group_ids as any)?.[g]),
    link: Boolean(link),
  };
}

describe('group members (docs/contract.md §6 /groups/{id}/members, /users/{id}/groups)', () => {
  it('POST /groups/{id}/members: 204, one link item seen from both ends, mirror and counts in the same transaction', async () => {
    const g = await fx.createGroup();
    const [u1, u2] = [await fx.createUser(), await fx.createUser()];
    expect((await members(g.id, [u1.id, u2.id])).status).toBe(204);
    expect(await state(g.id, u1.id)).toEqual({ members: 2, userGroups: 1, mirror: true, link: true });
    const link = await fx.storedItem(keys.groupMember(g.id, u1.id));
    expect(link).toMatchObject({
      GSI2PK: keys.userGroups(u1.id),
      GSI2SK: g.id,
      group_id: g.id,
      user_id: u1.id,
      tenant_id: g.tenant_id,
      created_by: fx.svc.clientId,
    });
    const list = await fx.call('GET', `/groups/${g.id}/members`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((l: any) => l.user_id).sort()).toEqual([u1.id, u2.id].sort());
    expect(Object.keys(list.body.items[0]).sort()).toEqual(
      ['created_at', 'created_by', 'group_id', 'id', 'tenant_id', 'updated_at', 'updated_by', 'user_id'].sort(),
    );
    const expanded = await fx.call('GET', `/groups/${g.id}/members?expand=all`);
    const item = expanded.body.items.find((l: any) => l.user_id === u1.id);
    expect(item.user_data).toEqual((await fx.call('GET', `/users/${u1.id}`)).body);
    expect((await fx.call('GET', `/groups/${g.id}`)).body.aggregations).toEqual({ members: 2, roles: 0, groups: 0 });
    expect((await fx.call('GET', `/users/${u1.id}`)).body.aggregations.groups).toBe(1);
    // DELETE from the user's side removes the same link.
    expect((await userGroups(u1.id, [g.id], 'DELETE')).status).toBe(204);
    expect(await state(g.id, u1.id)).toEqual({ members: 1, userGroups: 0, mirror: false, link: false });
  });

  it('POST /users/{id}/groups adds the same link; adding it again from the group side is 409', async () => {
    const [g1, g2] = [await fx.createGroup(), await fx.createGroup()];
    const u = await fx.createUser();
    expect((await userGroups(u.id, [g1.id, g2.id])).status).toBe(204);
    expect(await state(g1.id, u.id)).toEqual({ members: 1, userGroups: 2, mirror: true, link: true });
    expect(await state(g2.id, u.id)).toEqual({ members: 1, userGroups: 2, mirror: true, link: true });
    const again = await members(g1.id, [u.id]);
    expect(again.status).toBe(409);
    expect((await members(g1.id, [u.id], 'DELETE')).status).toBe(204);
    expect(await state(g1.id, u.id)).toEqual({ members: 0, userGroups: 1, mirror: false, link: false });
  });

  it('link rules: 51 ids → 400 before existence, unknown → 404, existing → 409, missing → 404; nothing changed', async () => {
    const g = await fx.createGroup();
    const [u1, u2] = [await fx.createUser(), await fx.createUser()];
    const many = Array.from({ length: 51 }, (_, i) => `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const tooMany = await members(g.id, many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('body.users');
    expect((await userGroups(u1.id, many)).status).toBe(400);
    expect((await members(g.id, [])).status).toBe(400);
    expect((await fx.call('POST', `/groups/${g.id}/members`, { body: { users: [u1.id], extra: 1 } })).status).toBe(400);
    const unknown = await members(g.id, [u1.id, UNKNOWN_ID]);
    expect(unknown.status).toBe(404);
    expect(await state(g.id, u1.id)).toEqual({ members: 0, userGroups: 0, mirror: false, link: false });
    expect((await userGroups(u1.id, [g.id, UNKNOWN_ID])).status).toBe(404);
    expect(await state(g.id, u1.id)).toEqual({ members: 0, userGroups: 0, mirror: false, link: false });
    expect((await members(UNKNOWN_ID, [u1.id])).status).toBe(404);
    expect((await userGroups(UNKNOWN_ID, [g.id])).status).toBe(404);
    expect((await members(g.id, [u1.id])).status).toBe(204);
    const existing = await members(g.id, [u2.id, u1.id]);
    expect(existing.status).toBe(409);
    expect(await state(g.id, u2.id)).toEqual({ members: 1, userGroups: 0, mirror: false, link: false });
    const missing = await members(g.id, [u1.id, u2.id], 'DELETE');
    expect(missing.status).toBe(404);
    expect(await state(g.id, u1.id)).toEqual({ members: 1, userGroups: 1, mirror: true, link: true });
    expect((await fx.call('GET', `/groups/${UNKNOWN_ID}/members`)).status).toBe(404);
  });

  it('20 concurrent additions of one member (from both ends): one 204, nineteen 409, counts exact', async () => {
    const g = await fx.createGroup();
    const u = await fx.createUser();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? members(g.id, [u.id]) : userGroups(u.id, [g.id]))));
    expect(results.filter((r) => r.status === 204)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    expect(await state(g.id, u.id)).toEqual({ members: 1, userGroups: 1, mirror: true, link: true });
  });

  it('50 members in one call (more than one transaction holds) land with exact counts', async () => {
    const g = await fx.createGroup();
    const users = await Promise.all(Array.from({ length: 50 }, () => fx.createUser()));
    expect(
      (
        await members(
          g.id,
          users.map((u) => u.id),
        )
      ).status,
    ).toBe(204);
    expect((await fx.storedGroup(g.id))?.aggregations.members).toBe(50);
    expect((await fx.call('GET', `/groups/${g.id}/members?limit=100`)).body.items).toHaveLength(50);
  });

  it("deleting a group removes its member links and each user's mirror and count", async () => {
    const g = await fx.createGroup();
    const [u1, u2] = [await fx.createUser(), await fx.createUser()];
    expect((await members(g.id, [u1.id, u2.id])).status).toBe(204);
    expect((await fx.call('DELETE', `/groups/${g.id}`)).status).toBe(204);
    for (const u of [u1, u2]) {
      const user = await fx.storedUser(u.id);
      expect((user!.group_ids as any)[g.id]).toBeUndefined();
      expect((user!.aggregations as any).groups).toBe(0);
    }
    expect(await fx.partition(g.id)).toEqual([]);
  });
});
