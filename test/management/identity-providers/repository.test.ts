import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import {
  type IdentityProvidersRepository,
  identityProviderReads,
  identityProvidersRepository,
  MAX_IDENTITY_PROVIDERS,
  type NewIdentityProvider,
} from '#shared/store/federation/identity-providers-repository.ts';
import { tenantsRepository } from '#shared/store/tenants/tenants-repository.ts';
import { createTestTable, type TestTable } from '../../support/service/dynamodb.ts';

const ACTOR = '019b0000-0000-7000-8000-0000000000aa';
const OTHER_TENANT = '019b0000-0000-7000-8000-00000000d001';
const T = DEFAULT_TENANT_ID;

let table: TestTable;
let repo: IdentityProvidersRepository;
beforeAll(async () => {
  table = await createTestTable('idp-repo');
  repo = identityProvidersRepository(table.db, table.tableName, () => new Date('2026-01-15T10:00:00.000Z'));
});

const rawItem = async (t: TestTable, key: { PK: string; SK: string }) =>
  (await t.db.send(new GetCommand({ TableName: t.tableName, Key: key, ConsistentRead: true }))).Item;

const input = (name: string, extra: Partial<NewIdentityProvider> = {}): NewIdentityProvider => ({
  tenant_id: T,
  provider_name: name,
  issuer: `https://${name}.example.com`,
  client_id: `client-${name}`,
  scopes: ['openid'],
  enabled: true,
  ...extra,
});

describe('identity providers repository', () => {
  it('creates the record, its name marker and the tenant counter; reads it by id, name and issuer', async () => {
    const p = await repo.create(input('acme'), ACTOR);
    expect(p).toMatchObject({ tenant_id: T, provider_name: 'acme', provider_type: 'oidc', version: 1, created_by: ACTOR });
    const reads = identityProviderReads(table.db, table.tableName);
    expect(await reads.byId(T, p.id)).toEqual(p);
    expect(await reads.byId(OTHER_TENANT, p.id)).toBeUndefined();
    expect(await reads.byName(T, 'acme')).toEqual(p);
    expect(await reads.byName(OTHER_TENANT, 'acme')).toBeUndefined();
    expect(await reads.byIssuer(T, 'https://acme.example.com')).toEqual([p]);
    expect(await reads.byIssuer(OTHER_TENANT, 'https://acme.example.com')).toEqual([]);
    expect(await rawItem(table, { PK: `UNIQUE#IDP_NAME#${T}#acme`, SK: 'UNIQUE' })).toMatchObject({ target_id: p.id });
    expect(await rawItem(table, { PK: `TENANT#${T}`, SK: 'COUNT#IDENTITY_PROVIDERS' })).toMatchObject({ count: 1 });
    await expect(repo.create(input('acme'), ACTOR)).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('body.provider_name'),
    });
  });

  it('lists the enabled ones in provider_name order', async () => {
    await repo.create(input('zeta'), ACTOR);
    await repo.create(input('beta', { enabled: false }), ACTOR);
    await repo.create(input('alpha'), ACTOR);
    expect((await repo.enabled(T)).map((p) => p.provider_name)).toEqual(['acme', 'alpha', 'zeta']);
    expect(await repo.enabled(OTHER_TENANT)).toEqual([]);
  });

  it('a rename moves the marker and a new issuer the index entry; delete removes record, marker and count', async () => {
    const p = await repo.create(input('renamed-from'), ACTOR);
    const before = await repo.count(T);
    const u = await repo.update(T, p.id, { provider_name: 'renamed-to', issuer: 'https://new.example.com', audience: 'aud' }, ACTOR);
    expect(u).toMatchObject({ provider_name: 'renamed-to', issuer: 'https://new.example.com', audience: 'aud', version: 2 });
    expect(await repo.byName(T, 'renamed-from')).toBeUndefined();
    expect(await repo.byName(T, 'renamed-to')).toEqual(u);
    expect(await repo.byIssuer(T, 'https://renamed-from.example.com')).toEqual([]);
    expect(await repo.byIssuer(T, 'https://new.example.com')).toEqual([u]);
    const cleared = await repo.update(T, p.id, { audience: null }, ACTOR);
    expect(cleared).not.toHaveProperty('audience');
    expect(await repo.delete(T, p.id)).toBe(true);
    expect(await repo.delete(T, p.id)).toBe(false);
    expect(await repo.byId(T, p.id)).toBeUndefined();
    expect(await rawItem(table, { PK: `UNIQUE#IDP_NAME#${T}#renamed-to`, SK: 'UNIQUE' })).toBeUndefined();
    expect(await repo.count(T)).toBe(before - 1);
  });

  it(`a tenant holds at most ${MAX_IDENTITY_PROVIDERS} providers, also when creates race for the last places`, async () => {
    const tenant = '019b0000-0000-7000-8000-00000000ca01';
    const some = (name: string) => input(name, { tenant_id: tenant });
    for (let i = 0; i < MAX_IDENTITY_PROVIDERS - 2; i++) await repo.create(some(`cap-${i}`), ACTOR);
    const raced = await Promise.allSettled([0, 1, 2, 3].map((i) => repo.create(some(`race-${i}`), ACTOR)));
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of raced.filter((x) => x.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({
        status: 409,
        message: expect.stringContaining(`${MAX_IDENTITY_PROVIDERS}`),
      });
    }
    expect(await repo.count(tenant)).toBe(MAX_IDENTITY_PROVIDERS);
    expect(await repo.enabled(tenant)).toHaveLength(MAX_IDENTITY_PROVIDERS);
    await expect(repo.create(some('one-more'), ACTOR)).rejects.toMatchObject({ status: 409 });
    expect(await rawItem(table, { PK: `UNIQUE#IDP_NAME#${tenant}#one-more`, SK: 'UNIQUE' })).toBeUndefined();
  });

  it('a create into a tenant deleted after the caller read it fails on the closed counter: 404, nothing stored', async () => {
    const tenants = tenantsRepository(table.db, table.tableName, () => new Date());
    const t = await tenants.create({ tenant_name: 'short-lived' }, ACTOR);
    expect(await tenants.delete(t.id)).toBe(true);
    await expect(repo.create(input('too-late', { tenant_id: t.id }), ACTOR)).rejects.toMatchObject({
      status: 404,
      message: 'The tenant no longer exists.',
    });
    expect(await rawItem(table, { PK: `UNIQUE#IDP_NAME#${t.id}#too-late`, SK: 'UNIQUE' })).toBeUndefined();
    expect(await rawItem(table, { PK: `TENANT#${t.id}`, SK: 'COUNT#IDENTITY_PROVIDERS' })).toMatchObject({ tenant_deleted: true });
  });
});
