import { beforeAll, describe, expect, it } from 'vitest';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('scopes');
});

describe('scopes repository', () => {
  it('create keeps the resource scope_names map and count exact (token path reads them)', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    const s1 = await f.scopes.create(r.id, { scope_name: 'read:x', scope_description: 'Read x' }, ACTOR);
    const s2 = await f.scopes.create(r.id, { scope_name: 'write:x' }, ACTOR);
    expect(s1).toMatchObject({
      resource_id: r.id,
      tenant_id: f.tenantId,
      scope_name: 'read:x',
      scope_description: 'Read x',
      version: 1,
      created_by: ACTOR,
    });
    const after = await f.resourceByIdentifier(f.tenantId, r.resource_metadata.identifier_url);
    expect(after?.scope_names).toEqual({ [s1.id]: 'read:x', [s2.id]: 'write:x' });
    expect(after?.aggregations.scopes).toBe(2);
    expect(await f.scopes.get(r.id, s1.id)).toEqual(s1);
    expect(await f.scopes.list(r.id)).toEqual([s1, s2]);
  });

  it('a duplicate name in the same resource is 409 and changes nothing; other resources may use it', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'dup' }]);
    await expect(f.scopes.create(r.id, { scope_name: 'dup' }, ACTOR)).rejects.toMatchObject({
      status: 409,
      message: 'body.scope_name: the resource already has a scope with this scope_name.', // docs/contract.md §8: the name is not echoed
    });
    expect(await f.resources.get(r.id)).toEqual(r);
    const other = await f.resources.create(newResource(f.tenantId), ACTOR);
    await f.scopes.create(other.id, { scope_name: 'dup' }, ACTOR);
  });

  it('scope names are case-sensitive (RFC 6749 §3.3)', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'Read' }]);
    await f.scopes.create(r.id, { scope_name: 'read' }, ACTOR);
  });

  it('create on an unknown resource is 404', async () => {
    await expect(f.scopes.create('019b0000-0000-7000-8000-000000000000', { scope_name: 'x' }, ACTOR)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('rename moves the marker and the scope_names entry; a taken name is 409', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'old' }, { scope_name: 'taken' }]);
    const [id] = Object.keys(r.scope_names);
    const u = await f.scopes.update(r.id, id!, { scope_name: 'new', scope_description: 'd' }, 'editor');
    expect(u).toMatchObject({ scope_name: 'new', scope_description: 'd', version: 2, updated_by: 'editor' });
    expect((await f.resources.get(r.id))?.scope_names[id!]).toBe('new');
    await f.scopes.create(r.id, { scope_name: 'old' }, ACTOR); // freed
    await expect(f.scopes.update(r.id, id!, { scope_name: 'taken' }, ACTOR)).rejects.toMatchObject({ status: 409 });
    expect((await f.scopes.get(r.id, id!))?.scope_name).toBe('new');
    expect((await f.resources.get(r.id))?.scope_names[id!]).toBe('new');
  });

  it('update of a description only leaves the resource untouched', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 's' }]);
    const [id] = Object.keys(r.scope_names);
    await f.scopes.update(r.id, id!, { scope_description: 'only' }, ACTOR);
    expect(await f.resources.get(r.id)).toEqual(r);
  });

  it('delete removes every client permission on the scope and fixes the counts (docs/contract.md §6)', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'gone' }, { scope_name: 'stays' }]);
    const [gone, stays] = Object.keys(r.scope_names);
    const clients = await Promise.all([1, 2, 3].map((i) => f.clients.create({ tenant_id: f.tenantId, client_name: `c${i}` }, ACTOR)));
    for (const c of clients) {
      await f.links.authorize(c.id, [r.id], ACTOR);
      await f.permissions.grant(c.id, [{ resource_id: r.id, scopes: [gone!, stays!] }], ACTOR);
    }
    expect((await f.resources.get(r.id))?.scope_holders).toEqual({ [gone!]: 3, [stays!]: 3 });

    await f.scopes.delete(r.id, gone!);

    const after = await f.resources.get(r.id);
    expect(after?.scope_names).toEqual({ [stays!]: 'stays' });
    expect(after?.scope_holders).toEqual({ [stays!]: 3 });
    expect(after?.aggregations).toEqual({ scopes: 1, clients: 3 });
    for (const c of clients) {
      const g = await f.clients.getClientWithGrants(c.id);
      expect(g?.grants.get(r.id)).toEqual(new Set([stays]));
      expect(g?.client.aggregations).toEqual({ resources: 1, permissions: 1 });
    }
    expect(await f.scopes.get(r.id, gone!)).toBeUndefined();
    await f.scopes.create(r.id, { scope_name: 'gone' }, ACTOR); // name freed
    await expect(f.scopes.delete(r.id, gone!)).rejects.toMatchObject({ status: 404 });
  });
});
