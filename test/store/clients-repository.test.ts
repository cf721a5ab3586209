import { beforeAll, describe, expect, it } from 'vitest';
import { verifyClientSecret } from '#shared/crypto/client-secret.ts';
import { ACTOR, newResource, type StoreFixture, storeFixture } from '../support/store/store-fixture.ts';

let f: StoreFixture;
beforeAll(async () => {
  f = await storeFixture('clients');
});

describe('clients repository', () => {
  it('creates a confidential client with the spec defaults (spec §2.2, docs/contract.md §5.1)', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'Billing', client_secret: 's3cret' }, ACTOR);
    expect(c).toMatchObject({
      tenant_id: f.tenantId,
      client_name: 'Billing',
      client_type: 'regular_web',
      is_public: false,
      is_global: true,
      is_first_party: false,
      is_default: false,
      client_secret_expires_at: null,
      aggregations: { resources: 0, permissions: 0 },
      version: 1,
      created_by: ACTOR,
      created_at: '2026-01-15T10:00:00.000Z',
    });
    expect(c.client_metadata.grant_types).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    expect(verifyClientSecret('s3cret', c.secret_hash)).toBe(true);
    expect(await f.secretBox.open(c.secret_sealed!)).toBe('s3cret');
    expect(c.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('round-trips through get, and stores no key attributes in the record', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'RoundTrip' }, ACTOR);
    const got = await f.clients.get(c.id);
    expect(got).toEqual(c);
    expect(got).not.toHaveProperty('PK');
    expect(got).not.toHaveProperty('GSI1PK');
    expect(got).not.toHaveProperty('type');
  });

  it('gives a public client no secret and no client_credentials grant', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'SPA', is_public: true }, ACTOR);
    expect(c.secret_hash).toBeUndefined();
    expect(c.secret_sealed).toBeUndefined();
    expect(c.client_type).toBe('spa');
    expect(c.client_metadata.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it('generates a 256-bit secret for a confidential client created without one', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'Gen' }, ACTOR);
    const secret = await f.secretBox.open(c.secret_sealed!);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(verifyClientSecret(secret, c.secret_hash)).toBe(true);
  });

  it('returns undefined for an unknown id', async () => {
    expect(await f.clients.get('019b0000-0000-7000-8000-000000000000')).toBeUndefined();
  });

  it('PATCH merges nested objects, keeps left-out fields and bumps the version (docs/contract.md §6)', async () => {
    const c = await f.clients.create(
      {
        tenant_id: f.tenantId,
        client_name: 'Merge',
        client_description: 'd',
        client_metadata: { urls: { redirect_uris: ['https://a/cb'] } },
      },
      ACTOR,
    );
    f.setNow(new Date('2026-01-15T11:00:00.000Z'));
    const u = await f.clients.update(c.id, { client_metadata: { grant_types: ['client_credentials'] }, is_first_party: true }, 'editor');
    expect(u.client_metadata.grant_types).toEqual(['client_credentials']);
    expect(u.client_metadata.urls).toEqual({ redirect_uris: ['https://a/cb'] });
    expect(u.client_description).toBe('d');
    expect(u).toMatchObject({
      is_first_party: true,
      version: 2,
      updated_by: 'editor',
      updated_at: '2026-01-15T11:00:00.000Z',
      created_at: c.created_at,
    });
    expect(await f.clients.get(c.id)).toEqual(u);
  });

  it('PATCH of an unknown client is 404', async () => {
    await expect(f.clients.update('019b0000-0000-7000-8000-000000000000', { client_name: 'x' }, ACTOR)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('PATCH with a stale expectedVersion is 409 (If-Match) and changes nothing', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'Stale' }, ACTOR);
    await f.clients.update(c.id, { client_name: 'Fresh' }, ACTOR);
    await expect(f.clients.update(c.id, { client_name: 'Lost' }, ACTOR, { expectedVersion: 1 })).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect((await f.clients.get(c.id))?.client_name).toBe('Fresh');
  });

  it('changes the secret: new hash and sealed copy, old secret no longer verifies', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'Rotate', client_secret: 'old' }, ACTOR);
    const u = await f.clients.changeSecret(c.id, 'new', ACTOR, { expiresAt: '2027-01-01T00:00:00.000Z' });
    expect(verifyClientSecret('new', u.secret_hash)).toBe(true);
    expect(verifyClientSecret('old', u.secret_hash)).toBe(false);
    expect(await f.secretBox.open(u.secret_sealed!)).toBe('new');
    expect(u.client_secret_expires_at).toBe('2027-01-01T00:00:00.000Z');
    expect(u.version).toBe(2);
  });

  it('moves a client between tenants with both collection counts', async () => {
    const t1 = '019b0000-0000-7000-8000-00000000a001';
    const t2 = '019b0000-0000-7000-8000-00000000a002';
    const c = await f.clients.create({ tenant_id: t1, client_name: 'Mover' }, ACTOR);
    expect(await f.clients.count(t1)).toBe(1);
    const u = await f.clients.update(c.id, { tenant_id: t2 }, ACTOR);
    expect(u.tenant_id).toBe(t2);
    expect([await f.clients.count(t1), await f.clients.count(t2)]).toEqual([0, 1]);
    expect((await f.clients.listAll(t2)).map((x) => x.id)).toEqual([c.id]);
  });

  it('pages a tenant in id (creation) order with Limit/ExclusiveStartKey, lists all, counts exactly', async () => {
    const tenant = '019b0000-0000-7000-8000-00000000b001';
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await f.clients.create({ tenant_id: tenant, client_name: `P${i}` }, ACTOR)).id);
    const p1 = await f.clients.listPage(tenant, { limit: 2 });
    const p2 = await f.clients.listPage(tenant, { limit: 2, exclusiveStartKey: p1.lastEvaluatedKey! });
    const p3 = await f.clients.listPage(tenant, { limit: 2, exclusiveStartKey: p2.lastEvaluatedKey! });
    expect([...p1.items, ...p2.items, ...p3.items].map((c) => c.id)).toEqual(ids);
    expect((await f.clients.listPage(tenant, { limit: 5, descending: true })).items.map((c) => c.id)).toEqual([...ids].reverse());
    expect((await f.clients.listAll(tenant)).map((c) => c.id)).toEqual(ids);
    expect(await f.clients.count(tenant)).toBe(5);
    await f.clients.delete(ids[0]!);
    expect(await f.clients.count(tenant)).toBe(4);
  });

  it('create with an existing id is 409 and leaves the count alone', async () => {
    const tenant = '019b0000-0000-7000-8000-00000000c001';
    const c = await f.clients.create({ tenant_id: tenant, client_name: 'Dup' }, ACTOR);
    await expect(f.clients.create({ id: c.id, tenant_id: tenant, client_name: 'Dup2' }, ACTOR)).rejects.toMatchObject({ status: 409 });
    expect(await f.clients.count(tenant)).toBe(1);
  });

  it('delete of an unknown client is 404', async () => {
    await expect(f.clients.delete('019b0000-0000-7000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
  });

  it('token path: getClientWithGrants returns the client, its resources and grants', async () => {
    const c = await f.clients.create({ tenant_id: f.tenantId, client_name: 'Token' }, ACTOR);
    const r1 = await f.resources.create(newResource(f.tenantId), ACTOR, [{ scope_name: 'read:a' }, { scope_name: 'write:a' }]);
    const r2 = await f.resources.create(newResource(f.tenantId), ACTOR);
    await f.links.authorize(c.id, [r1.id, r2.id], ACTOR);
    const [s1, s2] = Object.keys(r1.scope_names);
    await f.permissions.grant(c.id, [{ resource_id: r1.id, scopes: [s1!, s2!] }], ACTOR);
    const g = await f.clients.getClientWithGrants(c.id);
    expect(g?.client.id).toBe(c.id);
    expect(g?.client.aggregations).toEqual({ resources: 2, permissions: 2 });
    expect(g?.resources).toEqual(new Set([r1.id, r2.id]));
    expect(g?.grants).toEqual(new Map([[r1.id, new Set([s1, s2])]]));
    expect(await f.clients.getClientWithGrants('019b0000-0000-7000-8000-000000000000')).toBeUndefined();
  });
});
