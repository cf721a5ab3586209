import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

const groups = async (n: number) => Promise.all(Array.from({ length: n }, () => fx.createGroup()));
const ids = (o: Record<string, unknown> | undefined) => Object.keys(o ?? {}).sort();

/** The stored closure of a group: parents, ancestors, depth, height, child count. */
async function closure(id: string) {
  const g = await fx.storedGroup(id);
  return {
    parents: ids(g?.parent_ids),
    ancestors: ids(g?.ancestor_ids),
    depth: g?.depth,
    height: g?.height,
    groups: g?.aggregations.groups,
  };
}

/** A chain g[0] → g[1] → ... (each the parent of the next), nested over HTTP. */
async function chain(n: number) {
  const g = await groups(n);
  for (let i = 0; i + 1 < n; i++) expect((await fx.nest(g[i]!.id, g[i + 1]!.id)).status).toBe(204);
  return g.map((x) => x.id as string);
}

describe('nested groups (docs/contract.md §6 /groups/{id}/groups, §7.6)', () => {
  it('POST nests: 204, link records from both ends, group_data with expand=all, closures and counts stored', async () => {
    const [a, b, c] = await chain(3);
    const list = await fx.call('GET', `/groups/${a}/groups`);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(Object.keys(list.body.items[0]).sort()).toEqual(
      ['created_at', 'created_by', 'group_id', 'id', 'parent_group_id', 'tenant_id', 'updated_at', 'updated_by'].sort(),
    );
    expect(list.body.items[0]).toMatchObject({ parent_group_id: a, group_id: b, tenant_id: DEFAULT_TENANT, created_by: fx.svc.clientId });
    const expanded = await fx.call('GET', `/groups/${a}/groups?expand=all`);
    expect(expanded.body.items[0].group_data).toEqual((await fx.call('GET', `/groups/${b}`)).body);
    expect(await closure(a!)).toEqual({ parents: [], ancestors: [], depth: 1, height: 3, groups: 1 });
    expect(await closure(b!)).toEqual({ parents: [a], ancestors: [a], depth: 2, height: 2, groups: 1 });
    expect(await closure(c!)).toEqual({ parents: [b], ancestors: [a, b].sort(), depth: 3, height: 1, groups: 0 });
    expect((await fx.call('GET', `/groups/${a}`)).body.aggregations).toEqual({ members: 0, roles: 0, groups: 1 });
    const link = await fx.storedItem(keys.groupChild(a!, b!));
    expect(link).toMatchObject({ GSI2PK: keys.groupParents(b!), GSI2SK: a, parent_group_id: a, group_id: b });
  });

  it('a cycle is 409 (self, direct, through a grand-child) and changes nothing', async () => {
    const [a, b, c] = await chain(3);
    const before = await Promise.all([a, b, c].map((x) => closure(x!)));
    for (const [parent, child] of [
      [a, a],
      [b, a],
      [c, a],
    ]) {
      const res = await fx.nest(parent!, child!);
      expect(res.status, `${parent} → ${child}`).toBe(409);
      expect(res.body.message).toContain('cycle');
    }
    expect(await Promise.all([a, b, c].map((x) => closure(x!)))).toEqual(before);
    expect(await fx.storedItem(keys.groupChild(c!, a!))).toBeUndefined();
  });

  it('a chain of 10 groups is allowed, an 11th level is 409; joining two chains deeper than 10 is 409', async () => {
    const ten = await chain(10);
    expect((await closure(ten[9]!)).depth).toBe(10);
    expect((await closure(ten[0]!)).height).toBe(10);
    const [eleventh] = await groups(1);
    const res = await fx.nest(ten[9]!, eleventh!.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('10 levels');
    expect(await closure(eleventh!.id)).toEqual({ parents: [], ancestors: [], depth: 1, height: 1, groups: 0 });
    // A 5-chain under the 6th of a 6-chain: 6 + 5 = 11 levels.
    const six = await chain(6);
    const five = await chain(5);
    expect((await fx.nest(six[5]!, five[0]!)).status).toBe(409);
    expect((await fx.nest(six[4]!, five[0]!)).status).toBe(204);
    expect((await closure(five[4]!)).depth).toBe(10);
    expect((await closure(six[0]!)).height).toBe(10);
  });

  it('closures stay right after a removal and a re-add in the middle of a chain, and with two parents', async () => {
    const [a, b, c, d] = await chain(4);
    expect((await fx.unnest(b!, c!)).status).toBe(204);
    expect(await closure(a!)).toEqual({ parents: [], ancestors: [], depth: 1, height: 2, groups: 1 });
    expect(await closure(b!)).toEqual({ parents: [a], ancestors: [a], depth: 2, height: 1, groups: 0 });
    expect(await closure(c!)).toEqual({ parents: [], ancestors: [], depth: 1, height: 2, groups: 1 });
    expect(await closure(d!)).toEqual({ parents: [c], ancestors: [c], depth: 2, height: 1, groups: 0 });
    expect(await fx.storedItem(keys.groupChild(b!, c!))).toBeUndefined();
    expect((await fx.nest(b!, c!)).status).toBe(204);
    expect(await closure(d!)).toEqual({ parents: [c], ancestors: [a, b, c].sort(), depth: 4, height: 1, groups: 0 });
    expect((await closure(a!)).height).toBe(4);
    // A second parent x (a root) of c: c keeps the longest chain, gains x as ancestor.
    const [x] = await groups(1);
    expect((await fx.nest(x!.id, c!)).status).toBe(204);
    expect(await closure(c!)).toEqual({ parents: [b, x!.id].sort(), ancestors: [a, b, x!.id].sort(), depth: 3, height: 2, groups: 1 });
    expect((await closure(d!)).ancestors).toEqual([a, b, c, x!.id].sort());
    expect((await fx.unnest(b!, c!)).status).toBe(204);
    expect(await closure(c!)).toEqual({ parents: [x!.id], ancestors: [x!.id], depth: 2, height: 2, groups: 1 });
    expect(await closure(d!)).toEqual({ parents: [c], ancestors: [c, x!.id].sort(), depth: 3, height: 1, groups: 0 });
    expect((await closure(a!)).height).toBe(2);
  });

  it('A under B and B under A at once, 20 times: never both 204, and the stored graph has no cycle', async () => {
    for (let i = 0; i < 20; i++) {
      const [a, b] = await groups(2);
      const results = await Promise.all([fx.nest(a!.id, b!.id), fx.nest(b!.id, a!.id)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual([204, 409]);
      const [ca, cb] = [await closure(a!.id), await closure(b!.id)];
      const links = [await fx.storedItem(keys.groupChild(a!.id, b!.id)), await fx.storedItem(keys.groupChild(b!.id, a!.id))].filter(
        Boolean,
      );
      expect(links).toHaveLength(1);
      expect(ca.ancestors.includes(b!.id) && cb.ancestors.includes(a!.id)).toBe(false);
      expect(ca.ancestors).not.toContain(a!.id);
      expect(cb.ancestors).not.toContain(b!.id);
    }
  });

  it('link rules: 51 ids → 400 before existence, unknown → 404, existing → 409, missing on DELETE → 404; nothing changed', async () => {
    const [p, c1, c2] = await groups(3);
    const many = Array.from({ length: 51 }, () => UNKNOWN_ID.replace(/.$/, String(Math.floor(Math.random() * 10))));
    const tooMany = await fx.call('POST', `/groups/${p!.id}/groups`, { body: { groups: many } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('body.groups');
    expect((await fx.call('POST', `/groups/${p!.id}/groups`, { body: { groups: [] } })).status).toBe(400);
    expect((await fx.call('POST', `/groups/${p!.id}/groups`, { body: { groups: ['nope'] } })).status).toBe(400);
    const unknown = await fx.nest(p!.id, c1!.id, UNKNOWN_ID);
    expect(unknown.status).toBe(404);
    expect(await closure(p!.id)).toEqual({ parents: [], ancestors: [], depth: 1, height: 1, groups: 0 });
    expect(await fx.storedItem(keys.groupChild(p!.id, c1!.id))).toBeUndefined();
    expect((await fx.nest(p!.id, c1!.id)).status).toBe(204);
    const existing = await fx.nest(p!.id, c2!.id, c1!.id);
    expect(existing.status).toBe(409);
    expect(await fx.storedItem(keys.groupChild(p!.id, c2!.id))).toBeUndefined();
    expect((await closure(p!.id)).groups).toBe(1);
    const missing = await fx.unnest(p!.id, c1!.id, c2!.id);
    expect(missing.status).toBe(404);
    expect(await fx.storedItem(keys.groupChild(p!.id, c1!.id))).toMatchObject({
      type: 'NestedGroup',
      parent_group_id: p!.id,
      group_id: c1!.id,
    });
    expect((await fx.call('GET', `/groups/${UNKNOWN_ID}/groups`)).status).toBe(404);
    expect((await fx.nest(UNKNOWN_ID, c1!.id)).status).toBe(404);
    // Several at once: one transaction.
    const [d1, d2] = await groups(2);
    expect((await fx.nest(p!.id, c2!.id, d1!.id, d2!.id)).status).toBe(204);
    expect((await closure(p!.id)).groups).toBe(4);
    expect((await fx.unnest(p!.id, c1!.id, c2!.id, d1!.id, d2!.id)).status).toBe(204);
    expect(await closure(p!.id)).toEqual({ parents: [], ancestors: [], depth: 1, height: 1, groups: 0 });
  });

  it("deleting a group in the middle detaches it: parents' heights and children's closures recomputed, links gone", async () => {
    const [a, b, c, d] = await chain(4);
    expect((await fx.call('DELETE', `/groups/${b}`)).status).toBe(204);
    expect(await closure(a!)).toEqual({ parents: [], ancestors: [], depth: 1, height: 1, groups: 0 });
    expect(await closure(c!)).toEqual({ parents: [], ancestors: [], depth: 1, height: 2, groups: 1 });
    expect(await closure(d!)).toEqual({ parents: [c], ancestors: [c], depth: 2, height: 1, groups: 0 });
    expect(await fx.partition(b!)).toEqual([]);
    expect(await fx.storedItem(keys.groupChild(a!, b!))).toBeUndefined();
  });
});
