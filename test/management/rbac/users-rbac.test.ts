import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GroupsFixture, groupsFixture } from '../../support/management/groups-fixture.ts';
import { putGroup, putRole, setUserRbac } from '../../support/store/rbac-items.ts';

/**
 * GET /users/{user_id}/permissions and GET /users/{user_id}/groups (docs/contract.md §6, §7.6; docs/rbac.md)
 * over HTTP: the §3 list parameters on them, auth, forged ids, and tenants (multi-tenant mode: a
 * tenant-bound caller sees only its tenant's users; a role or group of another tenant named by a
 * user's mirrors grants nothing and is not listed).
 */
let fx: GroupsFixture;
let api: Awaited<ReturnType<GroupsFixture['createResource']>>;
let tenantB: string;
let bToken: string;

beforeAll(async () => {
  fx = await groupsFixture({ MULTI_TENANT: 'true' });
  api = await fx.createResource(['a', 'b', 'c']);
  tenantB = await fx.createTenant('tenant-b');
  const bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  bToken = await fx.clientToken(bound, 'read:users');
});
afterAll(async () => fx?.stop());

const ok = (res: { status: number; body: any }, status = 204) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};
const table = () => ({ db: fx.svc.stack.runtime.db, tableName: fx.svc.stack.runtime.config.tableName });

/** A user with: `a` direct, `b` from a direct role, `c` from a role of a group nested in another. */
async function richUser() {
  const user = await fx.createUser();
  const roleB = ok(await fx.call('POST', '/roles', { body: { role_name: `b ${randomUUID()}` } }), 201).id;
  ok(await fx.call('POST', `/roles/${roleB}/permissions`, { body: { permissions: [{ resource_id: api.id, scopes: [api.scope('b')] }] } }));
  const roleC = ok(await fx.call('POST', '/roles', { body: { role_name: `c ${randomUUID()}` } }), 201).id;
  ok(await fx.call('POST', `/roles/${roleC}/permissions`, { body: { permissions: [{ resource_id: api.id, scopes: [api.scope('c')] }] } }));
  const top = (await fx.createGroup()).id;
  const bottom = (await fx.createGroup()).id;
  ok(await fx.nest(top, bottom));
  ok(await fx.call('POST', `/groups/${top}/roles`, { body: { roles: [roleC] } }));
  ok(await fx.call('POST', `/users/${user.id}/roles`, { body: { roles: [roleB] } }));
  ok(await fx.call('POST', `/users/${user.id}/groups`, { body: { groups: [bottom] } }));
  ok(
    await fx.call('POST', `/users/${user.id}/permissions`, { body: { permissions: [{ resource_id: api.id, scopes: [api.scope('a')] }] } }),
  );
  return { user, roleB, roleC, top, bottom };
}

describe('GET /users/{user_id}/permissions: a §3 list', () => {
  it('fields, q, sort, limit with cursor, total_count; expand=all adds resource_data and scope_data', async () => {
    const { user, roleB, top } = await richUser();
    const all = ok(await fx.call('GET', `/users/${user.id}/permissions?total_count=true&sort=scope_id:asc`), 200);
    const ids = [api.scope('a'), api.scope('b'), api.scope('c')].sort();
    expect(all.total_count).toBe(3);
    expect(all.items.map((i: any) => i.scope_id)).toEqual(ids);
    const byScope = Object.fromEntries(all.items.map((i: any) => [i.scope_id, i.sources]));
    expect(byScope).toEqual({
      [api.scope('a')]: [{ type: 'direct' }],
      [api.scope('b')]: [{ type: 'role', id: roleB }],
      [api.scope('c')]: [{ type: 'group', id: top }],
    });

    const picked = ok(await fx.call('GET', `/users/${user.id}/permissions?fields=scope_id,sources&q=(scope_id=${api.scope('b')})`), 200);
    expect(picked.items).toEqual([{ scope_id: api.scope('b'), sources: [{ type: 'role', id: roleB }] }]);

    const desc = ok(await fx.call('GET', `/users/${user.id}/permissions?sort=scope_id:desc&limit=2`), 200);
    expect(desc.items.map((i: any) => i.scope_id)).toEqual([...ids].reverse().slice(0, 2));
    expect(desc.has_more).toBe(true);
    const rest = ok(await fx.call('GET', `/users/${user.id}/permissions?sort=scope_id:desc&limit=2&cursor=${desc.next_cursor}`), 200);
    expect(rest.items.map((i: any) => i.scope_id)).toEqual([ids[0]]);

    const expanded = ok(await fx.call('GET', `/users/${user.id}/permissions?expand=all&fields=scope_id,resource_data,scope_data`), 200);
    for (const item of expanded.items) {
      expect(item.resource_data.id).toBe(api.id);
      expect(item.scope_data).toMatchObject({ id: item.scope_id, scope_name: expect.stringMatching(/^[abc]$/) });
    }
  });

  it('bad list parameters are 400 naming the parameter', async () => {
    const { user } = await richUser();
    for (const [query, field] of [
      ['fields=nope', 'query.fields'],
      ['expand=some', 'query.expand'],
      ['sort=nope', 'query.sort'],
      ['q=(nope=1)', 'query.q'],
      ['limit=0', 'query.limit'],
      ['cursor=forged', 'query.cursor'],
    ] as const) {
      const res = await fx.call('GET', `/users/${user.id}/permissions?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toContain(field);
    }
  });
});

describe('GET /users/{user_id}/groups', () => {
  it('direct and inherited, each once; q on direct; expand=all adds group_data as GET /groups/{id} shows it', async () => {
    const { user, top, bottom } = await richUser();
    const list = ok(await fx.call('GET', `/users/${user.id}/groups`), 200);
    expect(list.items.map((i: any) => [i.group_id, i.direct])).toEqual([
      [top, false],
      [bottom, true],
    ]);
    const direct = ok(await fx.call('GET', `/users/${user.id}/groups?q=(direct=true)`), 200);
    expect(direct.items.map((i: any) => i.group_id)).toEqual([bottom]);
    const expanded = ok(await fx.call('GET', `/users/${user.id}/groups?expand=all`), 200);
    expect(expanded.items[0].group_data).toEqual(ok(await fx.call('GET', `/groups/${top}`), 200));
    // Joining the top group directly too: still listed once, now direct.
    ok(await fx.call('POST', `/groups/${top}/members`, { body: { users: [user.id] } }));
    const both = ok(await fx.call('GET', `/users/${user.id}/groups`), 200);
    expect(both.items.map((i: any) => [i.group_id, i.direct])).toEqual([
      [top, true],
      [bottom, true],
    ]);
  });
});

describe('auth, forged ids and tenants (attacks)', () => {
  it('no token: 401; a token without read:users: 403; a path id that is not a UUID: 400; an unknown user: 404', async () => {
    const { user } = await richUser();
    for (const path of [`/users/${user.id}/permissions`, `/users/${user.id}/groups`]) {
      expect((await fx.call('GET', path, { token: null })).status, path).toBe(401);
      const narrow = await fx.svc.managementToken('read:groups read:roles');
      const res = await fx.call('GET', path, { token: narrow });
      expect(res.status, path).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    }
    for (const sub of ['permissions', 'groups']) {
      const bad = await fx.call('GET', `/users/not-a-uuid/${sub}`);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toContain('path.user_id');
      expect(bad.body.message).not.toContain('not-a-uuid');
      expect((await fx.call('GET', `/users/${randomUUID()}/${sub}`)).status).toBe(404);
    }
  });

  it("a tenant-bound caller gets 404 for another tenant's user, and sees its own", async () => {
    const { user } = await richUser();
    for (const sub of ['permissions', 'groups']) {
      const res = await fx.call('GET', `/users/${user.id}/${sub}`, { token: bToken });
      expect(res.status, sub).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(api.id);
    }
    const own = await fx.createUser({}, { tenant_id: tenantB });
    expect(ok(await fx.call('GET', `/users/${own.id}/permissions`, { token: bToken }), 200).items).toEqual([]);
    expect(ok(await fx.call('GET', `/users/${own.id}/groups`, { token: bToken }), 200).items).toEqual([]);
  });

  it("a role or group of another tenant named by a user's mirrors (forged) grants nothing and is not listed", async () => {
    const foreignRole = await putRole(table(), { tenantId: tenantB, grants: { [api.id]: { [api.scope('a')]: true } } });
    const foreignGroupRole = await putRole(table(), { grants: { [api.id]: { [api.scope('b')]: true } } });
    const foreignGroup = await putGroup(table(), { tenantId: tenantB, roles: [foreignGroupRole] });
    const user = await fx.createUser();
    await setUserRbac(table(), user.id, { roles: [foreignRole, randomUUID()], groups: [foreignGroup, randomUUID()] });
    expect(ok(await fx.call('GET', `/users/${user.id}/permissions`), 200).items).toEqual([]);
    expect(ok(await fx.call('GET', `/users/${user.id}/groups`), 200).items).toEqual([]);
  });
});
