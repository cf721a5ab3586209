import { beforeAll, describe, expect, it } from 'vitest';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('resources');
});

const OTHER_TENANT = '019b0000-0000-7000-8000-00000000d001';

describe('resources repository', () => {
  it('creates with the defaults and finds it by id and by identifier_url (token path)', async () => {
    const input = newResource(f.tenantId);
    const r = await f.resources.create(input, ACTOR);
    expect(r).toMatchObject({
      tenant_id: f.tenantId,
      resource_type: 'api',
      resource_metadata: {
        identifier_url: input.resource_metadata.identifier_url,
        is_system: false,
        signing_algorithm: 'ES256',
        token_lifetime: 3600,
        rbac_enabled: false,
        skip_consent_for_first_party: true,
      },
      scope_names: {},
      aggregations: { scopes: 0, clients: 0 },
      version: 1,
      created_by: ACTOR,
      created_date: '2026-01-15T10:00:00.000Z',
      updated_date: '2026-01-15T10:00:00.000Z',
    });
    expect(r).not.toHaveProperty('created_at');
    expect(await f.resources.get(r.id)).toEqual(r);
    expect(await f.resourceByIdentifier(f.tenantId, input.resource_metadata.identifier_url)).toEqual(r);
    expect(await f.resources.findIdByIdentifier(f.tenantId, input.resource_metadata.identifier_url)).toBe(r.id);
    expect(await f.resourceByIdentifier(OTHER_TENANT, input.resource_metadata.identifier_url)).toBeUndefined();
  });

  it('stores an HS256 signing secret sealed, and generates one when none is given', async () => {
    const given = await f.resources.create(
      newResource(f.tenantId, { resource_metadata: { identifier_url: 'urn:hs:given', signing_algorithm: 'HS256', signing_secret: 'shh' } }),
      ACTOR,
    );
    expect(given.resource_metadata.signing_secret).not.toBe('shh');
    expect(await f.secretBox.open(given.resource_metadata.signing_secret!)).toBe('shh');
    const generated = await f.resources.create(
      newResource(f.tenantId, { resource_metadata: { identifier_url: 'urn:hs:gen', signing_algorithm: 'HS256' } }),
      ACTOR,
    );
    expect(Buffer.from(await f.secretBox.open(generated.resource_metadata.signing_secret!), 'base64url')).toHaveLength(32);
  });

  it('identifier_url is unique stage-wide: a duplicate in its tenant or another is 409 and changes nothing', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    const url = r.resource_metadata.identifier_url;
    const before = await f.resources.count(f.tenantId);
    await expect(f.resources.create(newResource(f.tenantId, { resource_metadata: { identifier_url: url } }), ACTOR)).rejects.toMatchObject({
      status: 409,
      message: 'body.resource_metadata.identifier_url: a resource with this identifier_url already exists.', // docs/contract.md §8: not echoed
    });
    expect(await f.resources.count(f.tenantId)).toBe(before);
    await expect(
      f.resources.create(newResource(OTHER_TENANT, { resource_metadata: { identifier_url: url } }), ACTOR),
    ).rejects.toMatchObject({
      status: 409,
    });
    expect(await f.resourceByIdentifier(OTHER_TENANT, url)).toBeUndefined();
  });

  it('PATCH merges resource_metadata and moves the identifier marker in the same transaction', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    const oldUrl = r.resource_metadata.identifier_url;
    f.setNow(new Date('2026-01-15T12:00:00.000Z'));
    const u = await f.resources.update(
      r.id,
      { resource_metadata: { identifier_url: 'https://moved.example.com/', rbac_enabled: true } },
      'editor',
    );
    expect(u.resource_metadata).toMatchObject({ identifier_url: 'https://moved.example.com/', rbac_enabled: true, token_lifetime: 3600 });
    expect(u).toMatchObject({ version: 2, updated_by: 'editor', updated_date: '2026-01-15T12:00:00.000Z', created_date: r.created_date });
    expect(await f.resourceByIdentifier(f.tenantId, oldUrl)).toBeUndefined();
    expect((await f.resourceByIdentifier(f.tenantId, 'https://moved.example.com/'))?.id).toBe(r.id);
    // The old identifier is free again.
    await f.resources.create(newResource(f.tenantId, { resource_metadata: { identifier_url: oldUrl } }), ACTOR);
  });

  it('PATCH to an identifier_url already taken is 409 and changes nothing', async () => {
    const a = await f.resources.create(newResource(f.tenantId), ACTOR);
    const b = await f.resources.create(newResource(f.tenantId), ACTOR);
    await expect(
      f.resources.update(
        b.id,
        { resource_name: 'renamed', resource_metadata: { identifier_url: a.resource_metadata.identifier_url } },
        ACTOR,
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect(await f.resources.get(b.id)).toEqual(b);
    expect(await f.resources.findIdByIdentifier(f.tenantId, a.resource_metadata.identifier_url)).toBe(a.id);
  });

  it('PATCH seals a new signing secret and refuses to flip is_system (403)', async () => {
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    const u = await f.resources.update(r.id, { resource_metadata: { signing_algorithm: 'HS256', signing_secret: 'k2' } }, ACTOR);
    expect(await f.secretBox.open(u.resource_metadata.signing_secret!)).toBe('k2');
    await expect(f.resources.update(r.id, { resource_metadata: { is_system: true } }, ACTOR)).rejects.toMatchObject({ status: 403 });
  });

  it('PATCH of an unknown resource is 404; a stale expectedVersion is 409', async () => {
    await expect(f.resources.update('019b0000-0000-7000-8000-000000000000', { resource_name: 'x' }, ACTOR)).rejects.toMatchObject({
      status: 404,
    });
    const r = await f.resources.create(newResource(f.tenantId), ACTOR);
    await expect(f.resources.update(r.id, { resource_name: 'x' }, ACTOR, { expectedVersion: 7 })).rejects.toMatchObject({ status: 409 });
  });

  it('pages in id order, lists all and counts', async () => {
    const tenant = '019b0000-0000-7000-8000-00000000d002';
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await f.resources.create(newResource(tenant), ACTOR)).id);
    const p1 = await f.resources.listPage(tenant, { limit: 2 });
    const p2 = await f.resources.listPage(tenant, { limit: 2, exclusiveStartKey: p1.lastEvaluatedKey! });
    expect([...p1.items, ...p2.items].map((r) => r.id)).toEqual(ids);
    expect(p2.lastEvaluatedKey).toBeUndefined();
    expect((await f.resources.listAll(tenant)).map((r) => r.id)).toEqual(ids);
    expect(await f.resources.count(tenant)).toBe(3);
  });

  it('delete cascades: scopes, markers, client links and permissions, with every count fixed', async () => {
    const tenant = '019b0000-0000-7000-8000-00000000d003';
    const r = await f.resources.create(newResource(tenant), ACTOR, [{ scope_name: 'a' }, { scope_name: 'b' }]);
    const keep = await f.resources.create(newResource(tenant), ACTOR, [{ scope_name: 'a' }]);
    const [sa, sb] = Object.keys(r.scope_names);
    const c1 = await f.clients.create({ tenant_id: tenant, client_name: 'c1' }, ACTOR);
    const c2 = await f.clients.create({ tenant_id: tenant, client_name: 'c2' }, ACTOR);
    await f.links.authorize(c1.id, [r.id, keep.id], ACTOR);
    await f.links.authorize(c2.id, [r.id], ACTOR);
    await f.permissions.grant(
      c1.id,
      [
        { resource_id: r.id, scopes: [sa!, sb!] },
        { resource_id: keep.id, scopes: Object.keys(keep.scope_names) },
      ],
      ACTOR,
    );
    await f.permissions.grant(c2.id, [{ resource_id: r.id, scopes: [sb!] }], ACTOR);

    await f.resources.delete(r.id);

    expect(await f.resources.get(r.id)).toBeUndefined();
    expect(await f.scopes.list(r.id)).toEqual([]);
    expect(await f.resources.count(tenant)).toBe(1);
    expect((await f.clients.get(c1.id))?.aggregations).toEqual({ resources: 1, permissions: 1 });
    expect((await f.clients.get(c2.id))?.aggregations).toEqual({ resources: 0, permissions: 0 });
    const g1 = await f.clients.getClientWithGrants(c1.id);
    expect(g1?.resources).toEqual(new Set([keep.id]));
    expect([...g1!.grants.keys()]).toEqual([keep.id]);
    expect((await f.resources.get(keep.id))?.aggregations).toEqual({ scopes: 1, clients: 1 });
    // Markers are gone: the identifier and the scope names can be used again.
    const again = await f.resources.create(
      newResource(tenant, { resource_metadata: { identifier_url: r.resource_metadata.identifier_url } }),
      ACTOR,
      [{ scope_name: 'a' }],
    );
    expect(again.id).not.toBe(r.id);
    await expect(f.resources.delete(r.id)).rejects.toMatchObject({ status: 404 });
  });
});
