import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourcesFixture, resourcesFixture, UNKNOWN_ID } from '../../support/management/resources-fixture.ts';

/** Resource Clients (docs/contract.md §6 `/resources/{id}/clients`, spec §2.9) and the resource delete cascade. */
let fx: ResourcesFixture;
beforeAll(async () => {
  fx = await resourcesFixture();
});
afterAll(async () => fx?.stop());

const clientsPath = (rid: string) => `/resources/${rid}/clients`;
const linkedIds = async (rid: string) =>
  ((await fx.call('GET', `${clientsPath(rid)}?limit=100`)).body.items as any[]).map((l) => l.client_id).sort();

describe('POST /resources/{id}/clients {clients: [...]}', () => {
  it('204; the links list with authorized: true; both ends count them (spec §2.4)', async () => {
    const r = await fx.createResource();
    const [a, b] = [await fx.createClient(), await fx.createClient()];
    const res = await fx.call('POST', clientsPath(r.id), { body: { clients: [a.id, b.id, a.id] } });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await linkedIds(r.id)).toEqual([a.id, b.id].sort());
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(2);
    expect((await fx.getClient(a.id))!.aggregations.resources).toBe(1);
    const list = await fx.call('GET', clientsPath(r.id));
    expect(list.body.items.every((l: any) => l.authorized === true && l.resource_id === r.id)).toBe(true);
    // the client may now ask for tokens for it (no scopes granted yet: an empty scope)
    const token = await fx.token(a.id, a.secret, r.resource_metadata.identifier_url);
    expect(token.status).toBe(200);
  });

  it('an existing link is 409 and nothing changes (all-or-nothing, docs/contract.md §6)', async () => {
    const r = await fx.createResource();
    const [a, b] = [await fx.createClient(), await fx.createClient()];
    await fx.authorize(r.id, [a.id]);
    const res = await fx.call('POST', clientsPath(r.id), { body: { clients: [b.id, a.id] } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(await linkedIds(r.id)).toEqual([a.id]);
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(1);
    expect((await fx.getClient(b.id))!.aggregations.resources).toBe(0);
  });

  it('an unknown client is 404 and nothing changes; an unknown resource is 404', async () => {
    const r = await fx.createResource();
    const a = await fx.createClient();
    const res = await fx.call('POST', clientsPath(r.id), { body: { clients: [a.id, UNKNOWN_ID] } });
    expect(res.status).toBe(404);
    // docs/contract.md §8: the field is named, the id sent is not echoed.
    expect(res.body).toEqual({ code: 'not_found', message: 'body.clients: a client was not found.' });
    expect(await linkedIds(r.id)).toEqual([]);
    expect((await fx.getClient(a.id))!.aggregations.resources).toBe(0);
    expect((await fx.call('POST', clientsPath(UNKNOWN_ID), { body: { clients: [a.id] } })).status).toBe(404);
  });

  it('20 parallel authorizations of one client: one 204, nineteen 409, counted once', async () => {
    const r = await fx.createResource();
    const a = await fx.createClient();
    const replies = await Promise.all(Array.from({ length: 20 }, () => fx.call('POST', clientsPath(r.id), { body: { clients: [a.id] } })));
    expect(replies.map((x) => x.status).sort()).toEqual([204, ...Array(19).fill(409)]);
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(1);
    expect((await fx.getClient(a.id))!.aggregations.resources).toBe(1);
    expect(await linkedIds(r.id)).toEqual([a.id]);
  });

  it('50 clients in one call are fine (docs/contract.md §6 maximum)', async () => {
    const r = await fx.createResource();
    const clients = await Promise.all(Array.from({ length: 50 }, () => fx.createClient()));
    await fx.authorize(
      r.id,
      clients.map((c) => c.id),
    );
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(50);
    expect((await fx.call('GET', `${clientsPath(r.id)}?total_count=true&limit=1`)).body.total_count).toBe(50);
  });

  it('401 without a token; 403 without update:resources', async () => {
    const r = await fx.createResource();
    const a = await fx.createClient();
    expect((await fx.call('POST', clientsPath(r.id), { body: { clients: [a.id] }, token: null })).status).toBe(401);
    const token = await fx.svc.managementToken('read:resources update:clients');
    expect((await fx.call('POST', clientsPath(r.id), { body: { clients: [a.id] }, token })).status).toBe(403);
    expect((await fx.call('DELETE', clientsPath(r.id), { body: { clients: [a.id] }, token })).status).toBe(403);
    expect((await fx.call('GET', clientsPath(r.id), { token: await fx.svc.managementToken('update:resources') })).status).toBe(403);
  });
});

describe('DELETE /resources/{id}/clients {clients: [...]}', () => {
  it("204; removes the links, the clients' permissions on the resource and every count; tokens refused at once", async () => {
    const r = await fx.createResource();
    const other = await fx.createResource();
    const s = await fx.createScope(r.id, 'read');
    const o = await fx.createScope(other.id, 'read');
    const [a, b] = [await fx.createClient(), await fx.createClient()];
    await fx.authorize(r.id, [a.id, b.id]);
    await fx.authorize(other.id, [a.id]);
    await fx.grant(a.id, r.id, [s.id]);
    await fx.grant(a.id, other.id, [o.id]);
    const audience = r.resource_metadata.identifier_url;
    expect(fx.claimsOf((await fx.token(a.id, a.secret, audience)).body.access_token).scope).toBe('read');

    const res = await fx.call('DELETE', clientsPath(r.id), { body: { clients: [a.id] } });
    expect(res.status).toBe(204);
    expect(await linkedIds(r.id)).toEqual([b.id]);
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(1);
    expect((await fx.getClient(a.id))!.aggregations).toEqual({ resources: 1, permissions: 1 });
    expect((await fx.permissionsOf(a.id)).map((p) => p.resource_id)).toEqual([other.id]);
    const refused = await fx.token(a.id, a.secret, audience);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_target');
    // the other resource is untouched
    expect((await fx.token(a.id, a.secret, other.resource_metadata.identifier_url)).status).toBe(200);
  });

  it('a missing link is 404 and nothing changes; an unknown client or resource is 404', async () => {
    const r = await fx.createResource();
    const [a, b] = [await fx.createClient(), await fx.createClient()];
    await fx.authorize(r.id, [a.id]);
    const res = await fx.call('DELETE', clientsPath(r.id), { body: { clients: [a.id, b.id] } });
    expect(res.status).toBe(404);
    expect(await linkedIds(r.id)).toEqual([a.id]);
    expect((await fx.call('DELETE', clientsPath(r.id), { body: { clients: [UNKNOWN_ID] } })).status).toBe(404);
    expect((await fx.call('DELETE', clientsPath(UNKNOWN_ID), { body: { clients: [a.id] } })).status).toBe(404);
    expect((await fx.getResource(r.id)).aggregations.clients).toBe(1);
  });
});

describe('DELETE /resources/{id} cascade (docs/data-model.md §4)', () => {
  it("removes scopes, links and permissions, fixes every client's counts; its audience stops issuing tokens", async () => {
    const r = await fx.createResource();
    const keep = await fx.createResource();
    const s1 = await fx.createScope(r.id, 'a');
    const s2 = await fx.createScope(r.id, 'b');
    const k = await fx.createScope(keep.id, 'k');
    const [a, b] = [await fx.createClient(), await fx.createClient()];
    await fx.authorize(r.id, [a.id, b.id]);
    await fx.authorize(keep.id, [a.id]);
    await fx.grant(a.id, r.id, [s1.id, s2.id]);
    await fx.grant(b.id, r.id, [s2.id]);
    await fx.grant(a.id, keep.id, [k.id]);
    const audience = r.resource_metadata.identifier_url;
    expect((await fx.token(b.id, b.secret, audience)).status).toBe(200);

    expect((await fx.call('DELETE', `/resources/${r.id}`)).status).toBe(204);
    expect((await fx.call('GET', `/resources/${r.id}/scopes`)).status).toBe(404);
    expect((await fx.call('GET', clientsPath(r.id))).status).toBe(404);
    expect((await fx.getClient(a.id))!.aggregations).toEqual({ resources: 1, permissions: 1 });
    expect((await fx.getClient(b.id))!.aggregations).toEqual({ resources: 0, permissions: 0 });
    expect((await fx.permissionsOf(a.id)).map((p) => p.scope_id)).toEqual([k.id]);
    expect(await fx.permissionsOf(b.id)).toEqual([]);
    const refused = await fx.token(b.id, b.secret, audience);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_target');
    expect((await fx.token(a.id, a.secret, keep.resource_metadata.identifier_url)).status).toBe(200);
    // the identifier_url and the scope names are free for a new resource
    const again = await fx.createResource({ resource_metadata: { identifier_url: audience } });
    await fx.createScope(again.id, 'a');
  });
});
