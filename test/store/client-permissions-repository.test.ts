import { beforeAll, describe, expect, it } from 'vitest';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('permissions');
});

const UNKNOWN = '019b0000-0000-7000-8000-000000000000';

async function linked(scopes = ['a', 'b', 'c']) {
  const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'c' }, ACTOR);
  const r = await f.resources.create(
    newResource(f.tenantId),
    ACTOR,
    scopes.map((scope_name) => ({ scope_name })),
  );
  await f.links.authorize(c.id, [r.id], ACTOR);
  return { c, r, s: Object.keys(r.scope_names) };
}

describe('client permissions', () => {
  it('grant adds permissions with counts on the client and holders on the resource; list returns them', async () => {
    const { c, r, s } = await linked();
    await f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [s[0]!, s[1]!] }], ACTOR);
    expect((await f.clients.get(c.id))?.aggregations).toEqual({ resources: 1, permissions: 2 });
    expect((await f.resources.get(r.id))?.scope_holders).toEqual({ [s[0]!]: 1, [s[1]!]: 1 });
    const list = await f.permissions.listForClient(c.id);
    expect(list.map((p) => p.scope_id).sort()).toEqual([s[0], s[1]].sort());
    expect(list[0]).toMatchObject({ client_id: c.id, resource_id: r.id, tenant_id: f.tenantId, created_by: ACTOR });
  });

  it('a resource not authorized to the client is 409 (docs/contract.md §6)', async () => {
    const { c } = await linked();
    const other = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'x' }]);
    await expect(
      f.permissions.grant(c.id, [{ resource_id: other.id, scopes: Object.keys(other.scope_names) }], ACTOR),
    ).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('not authorized'),
    });
  });

  it('a scope of another resource is 400 invalid_request, without echoing the scope (docs/contract.md §8)', async () => {
    const { c, r } = await linked();
    const other = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'x' }]);
    const [foreignScope] = Object.keys(other.scope_names);
    await expect(f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [foreignScope!] }], ACTOR)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'a scope is not a scope of its resource.', // the route prefixes body.permissions
    });
  });

  it('an unknown resource or client is 404', async () => {
    const { c } = await linked();
    await expect(f.permissions.grant(c.id, [{ resource_id: UNKNOWN, scopes: [UNKNOWN] }], ACTOR)).rejects.toMatchObject({ status: 404 });
    await expect(f.permissions.grant(UNKNOWN, [], ACTOR)).rejects.toMatchObject({ status: 404 });
    await expect(f.permissions.listForClient(UNKNOWN)).rejects.toMatchObject({ status: 404 });
  });

  it('all-or-nothing: an existing permission among new ones is 409 and nothing is written', async () => {
    const { c, r, s } = await linked();
    await f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [s[1]!] }], ACTOR);
    await expect(f.permissions.grant(c.id, [{ resource_id: r.id, scopes: s }], ACTOR)).rejects.toMatchObject({ status: 409 });
    expect((await f.permissions.listForClient(c.id)).map((p) => p.scope_id)).toEqual([s[1]]);
    expect((await f.clients.get(c.id))?.aggregations.permissions).toBe(1);
    expect((await f.resources.get(r.id))?.scope_holders).toEqual({ [s[1]!]: 1 });
  });

  it('all-or-nothing: one bad scope in a batch of 5 writes nothing', async () => {
    const { c, r, s } = await linked(['a', 'b', 'c', 'd']);
    await expect(f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [...s, UNKNOWN] }], ACTOR)).rejects.toMatchObject({ status: 400 });
    expect(await f.permissions.listForClient(c.id)).toEqual([]);
    expect((await f.clients.get(c.id))?.aggregations.permissions).toBe(0);
  });

  it('revoke removes permissions and counts; a missing one is 404 and nothing is removed', async () => {
    const { c, r, s } = await linked();
    await f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [s[0]!, s[1]!] }], ACTOR);
    await expect(f.permissions.revoke(c.id, [{ resource_id: r.id, scopes: [s[0]!, s[2]!] }])).rejects.toMatchObject({
      status: 404,
      message: 'body.permissions: a scope is not granted to this client.',
    });
    expect(await f.permissions.listForClient(c.id)).toHaveLength(2);
    await f.permissions.revoke(c.id, [{ resource_id: r.id, scopes: [s[0]!] }]);
    expect((await f.permissions.listForClient(c.id)).map((p) => p.scope_id)).toEqual([s[1]]);
    expect((await f.clients.get(c.id))?.aggregations.permissions).toBe(1);
    expect((await f.resources.get(r.id))?.scope_holders).toEqual({ [s[0]!]: 0, [s[1]!]: 1 });
  });

  it('duplicate pairs in one body are granted once', async () => {
    const { c, r, s } = await linked();
    await f.permissions.grant(
      c.id,
      [
        { resource_id: r.id, scopes: [s[0]!, s[0]!] },
        { resource_id: r.id, scopes: [s[0]!] },
      ],
      ACTOR,
    );
    expect((await f.clients.get(c.id))?.aggregations.permissions).toBe(1);
  });
});
