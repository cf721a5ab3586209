import { beforeAll, describe, expect, it } from 'vitest';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('links');
});

const UNKNOWN = '019b0000-0000-7000-8000-000000000000';
const OTHER_TENANT = '019b0000-0000-7000-8000-00000000e001';

const client = (extra: Record<string, unknown> = {}) => f.clients.create({ tenant_id: f.tenantId, client_name: 'c', ...extra }, ACTOR);
const resources = (n: number, tenant = f.tenantId) =>
  Promise.all(Array.from({ length: n }, () => f.resources.create(newResource(tenant), ACTOR, [{ scope_name: 's' }])));

describe('client-resource links', () => {
  it('authorize creates links with counts on both ends; both mirror reads see them', async () => {
    const c = await client();
    const [r1, r2] = await resources(2);
    await f.links.authorize(c.id, [r1!.id, r2!.id], ACTOR);
    expect((await f.clients.get(c.id))?.aggregations.resources).toBe(2);
    expect((await f.resources.get(r1!.id))?.aggregations.clients).toBe(1);
    const mine = await f.links.listForClient(c.id);
    expect(mine.map((l) => l.resource_id).sort()).toEqual([r1!.id, r2!.id].sort());
    expect(mine[0]).toMatchObject({ client_id: c.id, tenant_id: f.tenantId, created_by: ACTOR, updated_by: ACTOR });
    expect(mine[0]!.id).not.toBe(mine[0]!.resource_id);
    expect((await f.links.listForResource(r1!.id)).map((l) => l.client_id)).toEqual([c.id]);
  });

  it('all-or-nothing: one unknown id in a batch of 5 is 404, nothing written, counts unchanged (docs/contract.md §6)', async () => {
    const c = await client();
    const rs = await resources(4);
    const ids = [rs[0]!.id, rs[1]!.id, UNKNOWN, rs[2]!.id, rs[3]!.id];
    await expect(f.links.authorize(c.id, ids, ACTOR)).rejects.toMatchObject({
      status: 404,
      message: 'body.resources: a resource was not found.', // docs/contract.md §8: never the id sent
    });
    expect(await f.links.listForClient(c.id)).toEqual([]);
    expect((await f.clients.get(c.id))?.aggregations).toEqual({ resources: 0, permissions: 0 });
    for (const r of rs) expect((await f.resources.get(r.id))?.aggregations.clients).toBe(0);
  });

  it('all-or-nothing: one existing link in a batch of 5 is 409 and nothing else is written', async () => {
    const c = await client();
    const rs = await resources(5);
    await f.links.authorize(c.id, [rs[2]!.id], ACTOR);
    await expect(
      f.links.authorize(
        c.id,
        rs.map((r) => r.id),
        ACTOR,
      ),
    ).rejects.toMatchObject({ status: 409, message: 'body.resources: a resource is already authorized to this client.' });
    expect((await f.links.listForClient(c.id)).map((l) => l.resource_id)).toEqual([rs[2]!.id]);
    expect((await f.clients.get(c.id))?.aggregations.resources).toBe(1);
  });

  it('a non-global client cannot see another tenant’s resource (404); a global client can (docs/contract.md §4)', async () => {
    const [foreign] = await resources(1, OTHER_TENANT);
    const local = await client({ is_global: false });
    await expect(f.links.authorize(local.id, [foreign!.id], ACTOR)).rejects.toMatchObject({ status: 404 });
    const global = await client({ is_global: true });
    await f.links.authorize(global.id, [foreign!.id], ACTOR);
    expect((await f.resources.get(foreign!.id))?.aggregations.clients).toBe(1);
  });

  it('authorize on an unknown client is 404', async () => {
    const [r] = await resources(1);
    await expect(f.links.authorize(UNKNOWN, [r!.id], ACTOR)).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('Client'),
    });
  });

  it('revoke removes the links and the client’s permissions on them, fixing all counts', async () => {
    const c = await client();
    const [r1, r2] = await resources(2);
    await f.links.authorize(c.id, [r1!.id, r2!.id], ACTOR);
    await f.permissions.grant(
      c.id,
      [
        { resource_id: r1!.id, scopes: Object.keys(r1!.scope_names) },
        { resource_id: r2!.id, scopes: Object.keys(r2!.scope_names) },
      ],
      ACTOR,
    );
    await f.links.revoke(c.id, [r1!.id]);
    const g = await f.clients.getClientWithGrants(c.id);
    expect(g?.resources).toEqual(new Set([r2!.id]));
    expect([...g!.grants.keys()]).toEqual([r2!.id]);
    expect(g?.client.aggregations).toEqual({ resources: 1, permissions: 1 });
    const after = await f.resources.get(r1!.id);
    expect(after?.aggregations.clients).toBe(0);
    expect(Object.values(after!.scope_holders)).toEqual([0]);
  });

  it('revoke with one missing link in the batch is 404 and removes nothing', async () => {
    const c = await client();
    const [r1, r2] = await resources(2);
    await f.links.authorize(c.id, [r1!.id], ACTOR);
    await expect(f.links.revoke(c.id, [r1!.id, r2!.id])).rejects.toMatchObject({
      status: 404,
      message: 'body.resources: a resource is not authorized to this client.',
    });
    expect((await f.links.listForClient(c.id)).map((l) => l.resource_id)).toEqual([r1!.id]);
    expect((await f.clients.get(c.id))?.aggregations.resources).toBe(1);
  });

  it('50 resources in one call (101 items: chunked in order) are all linked with exact counts', async () => {
    const c = await client();
    const rs = await resources(50);
    await f.links.authorize(
      c.id,
      rs.map((r) => r.id),
      ACTOR,
    );
    expect((await f.clients.get(c.id))?.aggregations.resources).toBe(50);
    expect(await f.links.listForClient(c.id)).toHaveLength(50);
    for (const r of rs.slice(0, 3)) expect((await f.resources.get(r.id))?.aggregations.clients).toBe(1);
    await f.links.revoke(
      c.id,
      rs.map((r) => r.id),
    );
    expect((await f.clients.get(c.id))?.aggregations.resources).toBe(0);
  });

  it('mirror writes from the resource side (POST/DELETE /resources/{id}/clients)', async () => {
    const [r] = await resources(1);
    const c1 = await client();
    const c2 = await client({ is_global: false, tenant_id: OTHER_TENANT });
    await expect(f.links.authorizeClients(r!.id, [c1.id, c2.id], ACTOR)).rejects.toMatchObject({
      status: 404,
      message: 'body.clients: a client was not found.',
    });
    expect((await f.resources.get(r!.id))?.aggregations.clients).toBe(0);
    const c3 = await client();
    await f.links.authorizeClients(r!.id, [c1.id, c3.id], ACTOR);
    await expect(f.links.authorizeClients(r!.id, [c1.id], ACTOR)).rejects.toMatchObject({ status: 409 });
    await f.permissions.grant(c1.id, [{ resource_id: r!.id, scopes: Object.keys(r!.scope_names) }], ACTOR);
    expect((await f.links.listForResource(r!.id)).map((l) => l.client_id).sort()).toEqual([c1.id, c3.id].sort());
    await f.links.revokeClients(r!.id, [c1.id]);
    expect((await f.clients.get(c1.id))?.aggregations).toEqual({ resources: 0, permissions: 0 });
    expect((await f.resources.get(r!.id))?.aggregations.clients).toBe(1);
    await expect(f.links.revokeClients(r!.id, [c1.id])).rejects.toMatchObject({ status: 404 });
  });

  it('list reads of unknown records are 404', async () => {
    await expect(f.links.listForClient(UNKNOWN)).rejects.toMatchObject({ status: 404 });
    await expect(f.links.listForResource(UNKNOWN)).rejects.toMatchObject({ status: 404 });
  });

  it('deleting a client removes its links and permissions and fixes the resources’ counts', async () => {
    const c = await client();
    const rs = await resources(3);
    await f.links.authorize(
      c.id,
      rs.map((r) => r.id),
      ACTOR,
    );
    await f.permissions.grant(
      c.id,
      rs.map((r) => ({ resource_id: r.id, scopes: Object.keys(r.scope_names) })),
      ACTOR,
    );
    const before = await f.clients.count(f.tenantId);
    await f.clients.delete(c.id);
    expect(await f.clients.getClientWithGrants(c.id)).toBeUndefined();
    expect(await f.clients.count(f.tenantId)).toBe(before - 1);
    for (const r of rs) {
      const after = await f.resources.get(r.id);
      expect(after?.aggregations.clients).toBe(0);
      expect(Object.values(after!.scope_holders)).toEqual([0]);
      expect(await f.links.listForResource(r.id)).toEqual([]);
    }
  });

  it('deleting a client with more than 100 items goes in ordered chunks and leaves nothing behind', async () => {
    const c = await client();
    // 47 scopes come with the resource (the most one create transaction holds), the 48th after.
    const created = await f.resources.create(
      newResource(f.tenantId),
      ACTOR,
      Array.from({ length: 47 }, (_, i) => ({ scope_name: `s${i}` })),
    );
    await f.scopes.create(created.id, { scope_name: 's47' }, ACTOR);
    const big = await f.resources.get(created.id);
    expect(Object.keys(big!.scope_names)).toHaveLength(48);
    const small = await resources(30);
    await f.links.authorize(c.id, [big!.id, ...small.map((r) => r.id)], ACTOR);
    await f.permissions.grant(c.id, [{ resource_id: big!.id, scopes: Object.keys(big!.scope_names) }], ACTOR);
    expect((await f.clients.get(c.id))?.aggregations).toEqual({ resources: 31, permissions: 48 });
    await f.clients.delete(c.id);
    expect(await f.clients.getClientWithGrants(c.id)).toBeUndefined();
    expect((await f.resources.get(big!.id))?.aggregations.clients).toBe(0);
    expect(Object.values((await f.resources.get(big!.id))!.scope_holders).every((n) => n === 0)).toBe(true);
  });
});
