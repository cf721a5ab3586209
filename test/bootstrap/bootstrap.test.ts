import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type BootstrapInput, bootstrap } from '#shared/bootstrap/bootstrap.ts';
import { ensureDefaultClient } from '#shared/bootstrap/ensure-default-client.ts';
import { ensureSystemResource } from '#shared/bootstrap/ensure-system-resource.ts';
import { verifyClientSecret } from '#shared/crypto/client-secret.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { MANAGEMENT_SCOPES } from '#shared/routes/management-scopes.ts';
import { storeFixture } from '../support/store/store-fixture.ts';

const AUDIENCE = 'http://localhost:3000/identity/v1/';

async function setup() {
  const f = await storeFixture('bootstrap');
  const input: BootstrapInput = { db: f.db, tableName: f.tableName, secretBox: f.secretBox, now: f.now, managementAudience: AUDIENCE };
  return { f, input };
}

/** Every item of the table, sorted, minus volatile ids: the "state" two runs must agree on. */
async function snapshot(f: Awaited<ReturnType<typeof storeFixture>>) {
  const { Items = [] } = await f.db.send(new ScanCommand({ TableName: f.tableName, ConsistentRead: true }));
  return Items.map(
    (i) => `${String(i.PK)}|${String(i.SK)}|v${String(i.version ?? '-')}|lv${String(i.links_version ?? '-')}|n${String(i.count ?? '-')}`,
  ).sort();
}

describe('bootstrap (docs/contract.md §4)', () => {
  it('creates the default tenant, the system resource with every management scope and the Default Client', async () => {
    const { f, input } = await setup();
    const out = await bootstrap(input);
    expect(out.created).toBe(true);
    expect(out.clientSecret).toMatch(/^[\w-]{43}$/); // 256 random bits, base64url (docs/design.md §4)

    expect(await f.tenants.get(DEFAULT_TENANT_ID)).toMatchObject({ tenant_name: 'default', is_default: true });

    const system = await f.resourceByIdentifier(DEFAULT_TENANT_ID, AUDIENCE);
    expect(system).toMatchObject({
      resource_name: 'Management API',
      resource_type: 'api',
      resource_metadata: { is_system: true, identifier_url: AUDIENCE, signing_algorithm: 'ES256', token_lifetime: 3600 },
      aggregations: { scopes: MANAGEMENT_SCOPES.length, clients: 1 },
    });
    expect(Object.values(system!.scope_names).sort()).toEqual([...MANAGEMENT_SCOPES].sort());
    expect((await f.scopes.list(system!.id)).map((s) => s.scope_name).sort()).toEqual([...MANAGEMENT_SCOPES].sort());

    const g = await f.clients.getClientWithGrants(out.clientId);
    expect(g?.client).toMatchObject({
      client_name: 'Default Client',
      client_type: 'regular_web',
      is_default: true,
      is_global: true,
      is_first_party: true,
      is_public: false,
      client_metadata: { grant_types: ['client_credentials'] },
      aggregations: { resources: 1, permissions: MANAGEMENT_SCOPES.length },
    });
    expect(verifyClientSecret(out.clientSecret!, g?.client.secret_hash)).toBe(true);
    expect(g?.resources).toEqual(new Set([system!.id]));
    expect(g?.grants.get(system!.id)).toEqual(new Set(Object.keys(system!.scope_names)));
    expect(Object.values(system!.scope_holders).every((n) => n === 1)).toBe(true);
  });

  it('run twice: same state, one Default Client, no secret the second time', async () => {
    const { f, input } = await setup();
    const first = await bootstrap(input);
    const before = await snapshot(f);
    const second = await bootstrap(input);
    expect(second).toEqual({ created: false, clientId: first.clientId });
    expect(await snapshot(f)).toEqual(before);
    expect(await f.clients.count(DEFAULT_TENANT_ID)).toBe(1);
    expect(await f.resources.count(DEFAULT_TENANT_ID)).toBe(1);
  });

  it('is race-safe: five concurrent starts make one Default Client and one system resource', async () => {
    const { f, input } = await setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => bootstrap(input)));
    expect(new Set(results.map((r) => r.clientId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await f.clients.count(DEFAULT_TENANT_ID)).toBe(1);
    expect(await f.resources.count(DEFAULT_TENANT_ID)).toBe(1);
    const g = await f.clients.getClientWithGrants(results[0]!.clientId);
    expect(g?.client.aggregations).toEqual({ resources: 1, permissions: MANAGEMENT_SCOPES.length });
  });

  it('honours DEFAULT_CLIENT_ID / DEFAULT_CLIENT_SECRET and does not echo a given secret', async () => {
    const { f, input } = await setup();
    const id = '019b1111-2222-7333-8444-555566667777';
    const out = await bootstrap({ ...input, defaultClientId: id, defaultClientSecret: 'given-secret' });
    expect(out).toEqual({ created: true, clientId: id });
    expect(verifyClientSecret('given-secret', (await f.clients.get(id))?.secret_hash)).toBe(true);
  });

  it('replaces the secret of an existing Default Client when a different one is given', async () => {
    const { f, input } = await setup();
    const first = await bootstrap(input);
    const out = await bootstrap({ ...input, defaultClientSecret: 'rotated' });
    expect(out).toEqual({ created: false, clientId: first.clientId });
    const c = await f.clients.get(first.clientId);
    expect(verifyClientSecret('rotated', c?.secret_hash)).toBe(true);
    expect(verifyClientSecret(first.clientSecret!, c?.secret_hash)).toBe(false);
    const version = c!.version;
    await bootstrap({ ...input, defaultClientSecret: 'rotated' });
    expect((await f.clients.get(first.clientId))?.version).toBe(version); // same secret: untouched
  });

  it('refuses a DEFAULT_CLIENT_ID that differs from the existing Default Client', async () => {
    const { input } = await setup();
    await bootstrap(input);
    await expect(bootstrap({ ...input, defaultClientId: '019b1111-2222-7333-8444-000000000000' })).rejects.toThrow(/Default Client/);
  });

  it('completes a half-made Default Client (link and permissions missing)', async () => {
    const { f, input } = await setup();
    const out = await bootstrap(input);
    const system = (await f.resourceByIdentifier(DEFAULT_TENANT_ID, AUDIENCE))!;
    await f.links.revoke(out.clientId, [system.id]);
    expect((await f.clients.get(out.clientId))?.aggregations).toEqual({ resources: 0, permissions: 0 });
    await bootstrap(input);
    expect((await f.clients.get(out.clientId))?.aggregations).toEqual({ resources: 1, permissions: MANAGEMENT_SCOPES.length });
  });

  it('the Default Client and the system resource cannot be deleted (403)', async () => {
    const { f, input } = await setup();
    const out = await bootstrap(input);
    const system = (await f.resourceByIdentifier(DEFAULT_TENANT_ID, AUDIENCE))!;
    await expect(f.clients.delete(out.clientId)).rejects.toMatchObject({ status: 403 });
    await expect(f.resources.delete(system.id)).rejects.toMatchObject({ status: 403 });
    await expect(f.scopes.delete(system.id, Object.keys(system.scope_names)[0]!)).rejects.toMatchObject({ status: 403 });
    expect(await f.clients.get(out.clientId)).toMatchObject({ id: out.clientId });
  });

  it('a newer version with one more management scope adds it and grants it to the Default Client', async () => {
    const { f, input } = await setup();
    const out = await bootstrap(input);
    const scopes = [...MANAGEMENT_SCOPES, 'read:new_things'];
    const system = await ensureSystemResource(f.resources, f.scopes, AUDIENCE, scopes);
    expect(system.aggregations.scopes).toBe(scopes.length);
    await ensureDefaultClient({ clients: f.clients, links: f.links, permissions: f.permissions }, system, {});
    const g = await f.clients.getClientWithGrants(out.clientId);
    expect([...g!.grants.get(system.id)!].map((id) => system.scope_names[id]).sort()).toEqual(scopes.sort());
  });
});
