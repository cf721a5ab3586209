import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

let fx: GroupsFixture;
let tenantB: string;
let bTokenCaller: (method: string, path: string, body?: unknown) => ReturnType<GroupsFixture['call']>;

const GROUP_SCOPES = 'read:groups create:groups update:groups delete:groups';

beforeAll(async () => {
  fx = await groupsFixture({ MULTI_TENANT: 'true' });
  tenantB = await fx.createTenant('tenant-b');
  const bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  const token = await fx.clientToken(bound, GROUP_SCOPES);
  bTokenCaller = (method, path, body) => fx.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
});
afterAll(async () => fx?.stop());

describe("Groups and tenants (docs/contract.md §4): another tenant's group or user is a 404", () => {
  it("a tenant-bound caller creates in its tenant and cannot see, change or link the default tenant's groups", async () => {
    const mine = await bTokenCaller('POST', '/groups', { group_name: 'B group' });
    expect(mine.status).toBe(201);
    expect(mine.body.tenant_id).toBe(tenantB);
    const theirs = await fx.createGroup({ group_name: 'B group' }); // same name, other tenant: allowed
    for (const [method, path, body] of [
      ['GET', `/groups/${theirs.id}`, undefined],
      ['PATCH', `/groups/${theirs.id}`, { group_name: 'taken over' }],
      ['DELETE', `/groups/${theirs.id}`, undefined],
      ['GET', `/groups/${theirs.id}/members`, undefined],
      ['GET', `/groups/${theirs.id}/groups`, undefined],
      ['POST', `/groups/${theirs.id}/groups`, { groups: [mine.body.id] }],
      ['POST', `/groups/${mine.body.id}/groups`, { groups: [theirs.id] }],
    ] as const) {
      const res = await bTokenCaller(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await fx.call('GET', `/groups/${theirs.id}`)).body).toEqual(theirs);
    expect(await fx.storedItem(keys.groupChild(mine.body.id, theirs.id))).toBeUndefined();
    const list = await bTokenCaller('GET', '/groups?limit=100');
    expect(list.body.items.map((g: any) => g.id)).toEqual([mine.body.id]);
  });

  it('a user of another tenant cannot join a group, from either end (even for a global caller)', async () => {
    const g = await fx.createGroup();
    const other = await fx.createUser({}, { tenant_id: tenantB });
    expect(other.tenant_id).toBe(tenantB);
    expect((await fx.call('POST', `/groups/${g.id}/members`, { body: { users: [other.id] } })).status).toBe(404);
    expect((await fx.call('POST', `/users/${other.id}/groups`, { body: { groups: [g.id] } })).status).toBe(404);
    expect(await fx.storedItem(keys.groupMember(g.id, other.id))).toBeUndefined();
    expect((await fx.storedGroup(g.id))?.aggregations.members).toBe(0);
  });
});
