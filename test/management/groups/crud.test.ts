import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { GROUP_KEYS, type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';

let fx: GroupsFixture;
beforeAll(async () => {
  fx = await groupsFixture();
});
afterAll(async () => fx?.stop());

describe('Groups CRUD over HTTP (docs/contract.md §6 Group)', () => {
  it('POST creates: 201 with the Group record, audit fields, zero aggregations; the closure copies stored, not shown', async () => {
    const res = await fx.call('POST', '/groups', { body: { group_name: 'Engineering', group_description: 'All engineers' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...GROUP_KEYS, 'group_description'].sort());
    expect(res.body).toMatchObject({
      tenant_id: DEFAULT_TENANT,
      group_name: 'Engineering',
      group_description: 'All engineers',
      aggregations: { members: 0, roles: 0, groups: 0 },
      created_by: fx.svc.clientId,
      updated_by: fx.svc.clientId,
    });
    const item = await fx.storedGroup(res.body.id);
    expect(item).toMatchObject({
      role_ids: {},
      parent_ids: {},
      ancestor_ids: {},
      depth: 1,
      height: 1,
      version: 1,
      GSI1PK: keys.collection(DEFAULT_TENANT, 'GROUPS'),
    });
    const marker = await fx.storedItem(keys.marker('GROUP_NAME', DEFAULT_TENANT, 'engineering'));
    expect(marker?.target_id).toBe(res.body.id);
    const got = await fx.call('GET', `/groups/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('group_name is unique per tenant without case: 409 naming body.group_name, nothing stored', async () => {
    const g = await fx.createGroup({ group_name: 'Unique-Name' });
    const before = (await fx.call('GET', '/groups?total_count=true&limit=1')).body.total_count;
    const dup = await fx.call('POST', '/groups', { body: { group_name: 'unique-name' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('conflict');
    expect(dup.body.message).toContain('body.group_name');
    expect((await fx.call('GET', '/groups?total_count=true&limit=1')).body.total_count).toBe(before);
    // A rename onto a taken name: 409, the record unchanged.
    const other = await fx.createGroup();
    const moved = await fx.call('PATCH', `/groups/${other.id}`, { body: { group_name: 'UNIQUE-NAME', group_description: 'x' } });
    expect(moved.status).toBe(409);
    expect((await fx.call('GET', `/groups/${other.id}`)).body).toEqual(other);
    expect((await fx.storedItem(keys.marker('GROUP_NAME', DEFAULT_TENANT, 'unique-name')))?.target_id).toBe(g.id);
  });

  it('20 concurrent creates of one name: one 201, nineteen 409', async () => {
    const name = `race-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fx.call('POST', '/groups', { body: { group_name: i % 2 ? name : name.toUpperCase() } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
  });

  it('PATCH merges, PUT is a synonym, null removes the description; a rename moves the marker', async () => {
    const g = await fx.createGroup({ group_name: 'Old Name', group_description: 'd' });
    const patched = await fx.call('PATCH', `/groups/${g.id}`, { body: { group_name: 'New Name' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ group_name: 'New Name', group_description: 'd' });
    expect(await fx.storedItem(keys.marker('GROUP_NAME', DEFAULT_TENANT, 'old name'))).toBeUndefined();
    expect((await fx.storedItem(keys.marker('GROUP_NAME', DEFAULT_TENANT, 'new name')))?.target_id).toBe(g.id);
    const put = await fx.call('PUT', `/groups/${g.id}`, { body: { group_description: null } });
    expect(put.status).toBe(200);
    expect(put.body.group_description).toBeUndefined();
    expect(put.body.group_name).toBe('New Name');
    expect((await fx.storedGroup(g.id))?.version).toBe(3);
    // The old name is free again.
    expect((await fx.call('POST', '/groups', { body: { group_name: 'old name' } })).status).toBe(201);
  });

  it("lists the tenant's groups with total_count, q and fields", async () => {
    const g = await fx.createGroup({ group_name: `listed-${Date.now()}` });
    const res = await fx.call(
      'GET',
      `/groups?q=${encodeURIComponent(`(group_name=${g.group_name})`)}&fields=id,group_name&total_count=true`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([{ id: g.id, group_name: g.group_name }]);
    expect(res.body.total_count).toBe(1);
  });

  it('DELETE: 204, record and marker gone, the count down; a second DELETE is 404', async () => {
    const g = await fx.createGroup({ group_name: 'Doomed' });
    const before = (await fx.call('GET', '/groups?total_count=true&limit=1')).body.total_count;
    expect((await fx.call('DELETE', `/groups/${g.id}`)).status).toBe(204);
    expect(await fx.storedGroup(g.id)).toBeUndefined();
    expect(await fx.storedItem(keys.marker('GROUP_NAME', DEFAULT_TENANT, 'doomed'))).toBeUndefined();
    expect((await fx.call('GET', '/groups?total_count=true&limit=1')).body.total_count).toBe(before - 1);
    expect((await fx.call('GET', `/groups/${g.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/groups/${g.id}`)).status).toBe(404);
  });

  it('validation: 400 naming the field, unknown fields refused, bad ids 400, unknown ids 404', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.group_name'],
      [{ group_name: '' }, 'body.group_name'],
      [{ group_name: 'a\u202Eb' }, 'body.group_name'],
      [{ group_name: 'x'.repeat(256) }, 'body.group_name'],
      [{ group_name: 'ok', nmae: 1 }, 'body.nmae'],
      [{ group_name: 'ok', group_description: 5 }, 'body.group_description'],
      [{ group_name: 'ok', tenant_id: DEFAULT_TENANT }, 'body.tenant_id'],
    ];
    for (const [body, field] of cases) {
      const res = await fx.call('POST', '/groups', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect((await fx.call('GET', '/groups/not-a-uuid')).status).toBe(400);
    expect((await fx.call('GET', `/groups/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await fx.call('PATCH', `/groups/${UNKNOWN_ID}`, { body: { group_name: 'x' } })).status).toBe(404);
  });

  it('scopes: read:groups reads, and nothing else', async () => {
    const client = await fx.createClient();
    const token = await fx.clientToken(client, 'read:groups');
    const g = await fx.createGroup();
    expect((await fx.call('GET', `/groups/${g.id}`, { token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/groups', { group_name: 'nope' }],
      ['PATCH', `/groups/${g.id}`, { group_name: 'nope' }],
      ['DELETE', `/groups/${g.id}`, undefined],
      ['POST', `/groups/${g.id}/members`, { users: [UNKNOWN_ID] }],
      ['POST', `/groups/${g.id}/groups`, { groups: [UNKNOWN_ID] }],
    ] as const) {
      const res = await fx.call(method, path, { token, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await fx.call('GET', `/groups/${g.id}`)).body).toEqual(g);
  });
});
