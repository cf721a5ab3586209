import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { type ClientsFixture, clientsFixture, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
beforeAll(async () => {
  fx = await clientsFixture();
});
afterAll(async () => fx?.stop());

const resourceCounts = async (id: string) => {
  const { runtime } = fx.svc.stack;
  const r = await resourcesRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox).get(id);
  return { clients: r!.aggregations.clients, holders: r!.scope_holders };
};
const aggregations = async (clientId: string) => (await fx.call('GET', `/clients/${clientId}?fields=aggregations`)).body.aggregations;
const authorize = (clientId: string, resources: string[]) => fx.call('POST', `/clients/${clientId}/resources`, { body: { resources } });
const revoke = (clientId: string, resources: string[]) => fx.call('DELETE', `/clients/${clientId}/resources`, { body: { resources } });
const grant = (clientId: string, permissions: { resource_id: string; scopes: string[] }[]) =>
  fx.call('POST', `/clients/${clientId}/permissions`, { body: { permissions } });
const revokeP = (clientId: string, permissions: { resource_id: string; scopes: string[] }[]) =>
  fx.call('DELETE', `/clients/${clientId}/permissions`, { body: { permissions } });

describe('Client Resources: authorize / list / revoke (spec §4.3, docs/contract.md §6)', () => {
  it('authorize → 204; the link has spec §2.5 fields; both aggregations count it', async () => {
    const a = await fx.createResource();
    const c = await fx.createClient();
    const res = await authorize(c.id, [a.id, a.id]);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const list = await fx.call('GET', `/clients/${c.id}/resources`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ count: 1, has_more: false, limit: 10, offset: 0 });
    const link = list.body.items[0];
    expect(Object.keys(link).sort()).toEqual([
      'client_id',
      'created_at',
      'created_by',
      'id',
      'resource_id',
      'tenant_id',
      'updated_at',
      'updated_by',
    ]);
    expect(link).toMatchObject({ client_id: c.id, resource_id: a.id, created_by: fx.svc.clientId });
    expect(await aggregations(c.id)).toMatchObject({ resources: 1, permissions: 0 });
    expect((await resourceCounts(a.id)).clients).toBe(1);
  });

  it('expand=all adds resource_data (a Resource without storage fields or signing secret)', async () => {
    const a = await fx.createResource();
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    const item = (await fx.call('GET', `/clients/${c.id}/resources?expand=all`)).body.items[0];
    expect(item.resource_data).toMatchObject({
      id: a.id,
      resource_name: a.resource.resource_name,
      resource_metadata: { identifier_url: a.audience },
    });
    for (const k of ['scope_names', 'scope_holders', 'links_version', 'version']) expect(item.resource_data[k]).toBeUndefined();
    expect(item.resource_data.resource_metadata.signing_secret).toBeUndefined();
    expect((await fx.call('GET', `/clients/${c.id}/resources`)).body.items[0].resource_data).toBeUndefined();
  });

  it('all-or-nothing: an unknown id is 404 and the known one is not linked', async () => {
    const a = await fx.createResource();
    const c = await fx.createClient();
    const res = await authorize(c.id, [a.id, UNKNOWN_ID]);
    expect(res.status).toBe(404);
    // docs/contract.md §8: the field is named, the id sent is not echoed.
    expect(res.body.message).toBe('body.resources: a resource was not found.');
    expect((await fx.call('GET', `/clients/${c.id}/resources`)).body.count).toBe(0);
    expect(await aggregations(c.id)).toMatchObject({ resources: 0 });
  });

  it('all-or-nothing: an existing link is 409 and the new one is not added', async () => {
    const [a, b] = [await fx.createResource(), await fx.createResource()];
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    const res = await authorize(c.id, [b.id, a.id]);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect((await fx.call('GET', `/clients/${c.id}/resources`)).body.items.map((l: any) => l.resource_id)).toEqual([a.id]);
    expect((await resourceCounts(b.id)).clients).toBe(0);
  });

  it('revoke → 204 and also removes the client permissions on that resource; counts follow', async () => {
    const [a, b] = [await fx.createResource(['x', 'y']), await fx.createResource(['z'])];
    const c = await fx.createClient();
    await authorize(c.id, [a.id, b.id]);
    expect(
      (
        await grant(c.id, [
          { resource_id: a.id, scopes: [a.scope('x'), a.scope('y')] },
          { resource_id: b.id, scopes: [b.scope('z')] },
        ])
      ).status,
    ).toBe(204);
    expect(await aggregations(c.id)).toMatchObject({ resources: 2, permissions: 3 });

    expect((await revoke(c.id, [a.id])).status).toBe(204);
    expect(await aggregations(c.id)).toMatchObject({ resources: 1, permissions: 1 });
    expect((await fx.call('GET', `/clients/${c.id}/permissions`)).body.items.map((p: any) => p.scope_id)).toEqual([b.scope('z')]);
    expect(await resourceCounts(a.id)).toEqual({ clients: 0, holders: { [a.scope('x')]: 0, [a.scope('y')]: 0 } });
  });

  it('revoke of a missing link is 404 and revokes nothing (all-or-nothing)', async () => {
    const [a, b] = [await fx.createResource(), await fx.createResource()];
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    const res = await revoke(c.id, [a.id, b.id]);
    expect(res.status).toBe(404);
    expect(await aggregations(c.id)).toMatchObject({ resources: 1 });
  });
});

describe('Client Permissions: grant / list / revoke (spec §4.3, docs/contract.md §6)', () => {
  it('grant → 204; spec §2.6 fields; expand=all adds resource_data and scope_data', async () => {
    const a = await fx.createResource(['read', 'write']);
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    expect((await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }])).status).toBe(204);
    const list = await fx.call('GET', `/clients/${c.id}/permissions`);
    expect(list.body.count).toBe(1);
    expect(Object.keys(list.body.items[0]).sort()).toEqual([
      'client_id',
      'created_at',
      'created_by',
      'id',
      'resource_id',
      'scope_id',
      'tenant_id',
      'updated_at',
      'updated_by',
    ]);
    expect(list.body.items[0]).toMatchObject({ client_id: c.id, resource_id: a.id, scope_id: a.scope('read') });
    const expanded = (await fx.call('GET', `/clients/${c.id}/permissions?expand=all`)).body.items[0];
    expect(expanded.resource_data).toMatchObject({ id: a.id });
    expect(expanded.scope_data).toMatchObject({ id: a.scope('read'), scope_name: 'read', resource_id: a.id });
    expect(expanded.scope_data.version).toBeUndefined();
    expect(await aggregations(c.id)).toMatchObject({ resources: 1, permissions: 1 });
  });

  it('the resource must be authorized to the client: 409', async () => {
    const a = await fx.createResource(['read']);
    const c = await fx.createClient();
    const res = await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }]);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/authorize/);
  });

  it('a scope of another resource: 400 naming body.permissions; nothing granted', async () => {
    const [a, b] = [await fx.createResource(['read']), await fx.createResource(['other'])];
    const c = await fx.createClient();
    await authorize(c.id, [a.id, b.id]);
    const res = await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read'), b.scope('other')] }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^body\.permissions: /);
    expect(await aggregations(c.id)).toMatchObject({ permissions: 0 });
  });

  it('an unknown resource: 404; an existing permission: 409; all-or-nothing', async () => {
    const a = await fx.createResource(['read', 'write']);
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    expect((await grant(c.id, [{ resource_id: UNKNOWN_ID, scopes: [a.scope('read')] }])).status).toBe(404);
    await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }]);
    const dup = await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('write'), a.scope('read')] }]);
    expect(dup.status).toBe(409);
    expect(await aggregations(c.id)).toMatchObject({ permissions: 1 });
  });

  it('revoke → 204; a permission not held: 404 and nothing revoked', async () => {
    const a = await fx.createResource(['read', 'write']);
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }]);
    expect((await revokeP(c.id, [{ resource_id: a.id, scopes: [a.scope('read'), a.scope('write')] }])).status).toBe(404);
    expect(await aggregations(c.id)).toMatchObject({ permissions: 1 });
    expect((await revokeP(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }])).status).toBe(204);
    expect(await aggregations(c.id)).toMatchObject({ resources: 1, permissions: 0 });
    expect((await resourceCounts(a.id)).holders[a.scope('read')]).toBe(0);
  });

  it('expand=all on the client shows its resources and permissions as children', async () => {
    const a = await fx.createResource(['read']);
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }]);
    const body = (await fx.call('GET', `/clients/${c.id}?expand=all&fields=resources,permissions,aggregations`)).body;
    expect(body.resources).toEqual([expect.objectContaining({ resource_id: a.id, client_id: c.id })]);
    expect(body.permissions).toEqual([expect.objectContaining({ resource_id: a.id, scope_id: a.scope('read') })]);
    expect(body.aggregations).toMatchObject({ resources: 1, permissions: 1 });
  });

  it('expand=all: the nested links carry resource_data and scope_data, as their own lists do (spec §2.5, §2.6)', async () => {
    const a = await fx.createResource(['read']);
    const c = await fx.createClient();
    await authorize(c.id, [a.id]);
    await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read')] }]);
    const one = (await fx.call('GET', `/clients/${c.id}?expand=all`)).body;
    const linkList = (await fx.call('GET', `/clients/${c.id}/resources?expand=all`)).body.items;
    const permissionList = (await fx.call('GET', `/clients/${c.id}/permissions?expand=all`)).body.items;
    expect(one.resources).toEqual(linkList);
    expect(one.resources[0].resource_data).toMatchObject({ id: a.id, resource_metadata: expect.any(Object) });
    expect(one.resources[0].resource_data.resource_metadata).not.toHaveProperty('signing_secret');
    expect(one.permissions).toEqual(permissionList);
    expect(one.permissions[0]).toMatchObject({ resource_data: { id: a.id }, scope_data: { id: a.scope('read'), scope_name: 'read' } });
    const listed = (await fx.call('GET', `/clients?q=(id=${c.id})&expand=all`)).body.items[0];
    expect(listed.resources).toEqual(linkList);
    expect(listed.permissions).toEqual(permissionList);
  });
});

describe('what is granted is exactly what a client_credentials token carries, at once (docs/contract.md §5.1)', () => {
  it('grant → the token carries exactly those scopes; revoke → asking for them is invalid_scope', async () => {
    const a = await fx.createResource(['read', 'write', 'admin']);
    const c = await fx.createClient();
    expect((await fx.token(c.id, c.client_secret, a.audience)).body.error).toBe('invalid_target');
    await authorize(c.id, [a.id]);
    const none = await fx.token(c.id, c.client_secret, a.audience);
    expect(none.status).toBe(200);
    expect(fx.scopesOf(none.body.access_token)).toEqual([]);

    await grant(c.id, [{ resource_id: a.id, scopes: [a.scope('read'), a.scope('write')] }]);
    const t1 = await fx.token(c.id, c.client_secret, a.audience);
    expect(fx.scopesOf(t1.body.access_token)).toEqual(['read', 'write']);
    expect((await fx.token(c.id, c.client_secret, a.audience, 'admin')).body.error).toBe('invalid_scope');

    await revokeP(c.id, [{ resource_id: a.id, scopes: [a.scope('write')] }]);
    const denied = await fx.token(c.id, c.client_secret, a.audience, 'write');
    expect(denied.status).toBe(400);
    expect(denied.body.error).toBe('invalid_scope');
    expect(fx.scopesOf((await fx.token(c.id, c.client_secret, a.audience)).body.access_token)).toEqual(['read']);

    await revoke(c.id, [a.id]);
    expect((await fx.token(c.id, c.client_secret, a.audience)).body.error).toBe('invalid_target');
    expect((await fx.token(c.id, c.client_secret, a.audience, 'read')).status).toBe(400);
  });
});

describe('cascade on delete (docs/data-model.md §4)', () => {
  it('deleting a client removes its links and permissions and fixes the resources counts', async () => {
    const [a, b] = [await fx.createResource(['x', 'y']), await fx.createResource(['z'])];
    const keep = await fx.createClient();
    const c = await fx.createClient();
    for (const id of [keep.id, c.id]) await authorize(id, [a.id, b.id]);
    await grant(c.id, [
      { resource_id: a.id, scopes: [a.scope('x'), a.scope('y')] },
      { resource_id: b.id, scopes: [b.scope('z')] },
    ]);
    await grant(keep.id, [{ resource_id: a.id, scopes: [a.scope('x')] }]);
    expect(await resourceCounts(a.id)).toEqual({ clients: 2, holders: { [a.scope('x')]: 2, [a.scope('y')]: 1 } });

    expect((await fx.call('DELETE', `/clients/${c.id}`)).status).toBe(204);
    expect(await resourceCounts(a.id)).toEqual({ clients: 1, holders: { [a.scope('x')]: 1, [a.scope('y')]: 0 } });
    expect(await resourceCounts(b.id)).toEqual({ clients: 1, holders: { [b.scope('z')]: 0 } });
    expect((await fx.call('GET', `/clients/${c.id}/resources`)).status).toBe(404);
    expect((await fx.call('GET', `/clients/${c.id}/permissions`)).status).toBe(404);
    expect(await aggregations(keep.id)).toMatchObject({ resources: 2, permissions: 1 });
  });
});

describe('the Default Client keeps the management API (docs/contract.md §4)', () => {
  it('revoking the management API or its permissions from the Default Client is 403', async () => {
    const links = (await fx.call('GET', `/clients/${fx.svc.clientId}/resources?expand=all`)).body.items;
    const systemId = links.find((l: any) => l.resource_data.resource_metadata.is_system).resource_id;
    const perms = (await fx.call('GET', `/clients/${fx.svc.clientId}/permissions?limit=1`)).body.items;
    expect((await revoke(fx.svc.clientId, [systemId])).status).toBe(403);
    expect((await revokeP(fx.svc.clientId, [{ resource_id: systemId, scopes: [perms[0].scope_id] }])).status).toBe(403);
    expect((await fx.call('GET', '/clients', { token: await fx.svc.managementToken('read:clients') })).status).toBe(200);
  });

  it('other resources can be authorized to and revoked from it', async () => {
    const a = await fx.createResource(['read']);
    expect((await authorize(fx.svc.clientId, [a.id])).status).toBe(204);
    expect((await grant(fx.svc.clientId, [{ resource_id: a.id, scopes: [a.scope('read')] }])).status).toBe(204);
    expect((await revoke(fx.svc.clientId, [a.id])).status).toBe(204);
  });
});
