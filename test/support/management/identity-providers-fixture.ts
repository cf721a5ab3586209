import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/store/core/table-keys.ts';
import { tenantsFixture } from './tenants-fixture.ts';

/**
 * The Tenants fixture (multi-tenant unless `env` says otherwise) plus Tenant Identity Providers
 * helpers: `createProvider` over HTTP, the raw provider item, and every item of the table holding a
 * string (to prove a secret is stored nowhere in clear).
 */
export async function identityProvidersFixture(env: Record<string, string> = { MULTI_TENANT: 'true' }) {
  const fx = await tenantsFixture(env);
  const { runtime } = fx.svc.stack;
  const table = runtime.config.tableName;
  return {
    ...fx,
    /** POST /tenants/{tenantId}/identity-providers with a fresh name, expecting 201. */
    async createProvider(tenantId: string, body: Record<string, unknown> = {}) {
      const res = await fx.call('POST', `/tenants/${tenantId}/identity-providers`, { body: providerBody(body) });
      if (res.status !== 201) throw new Error(`create provider: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    providerItem: (tenantId: string, id: string) => fx.item(keys.identityProvider(tenantId, id)),
    nameMarker: (tenantId: string, name: string) => fx.item(keys.marker('IDP_NAME', tenantId, name)),
    counter: async (tenantId: string) => (await fx.item(keys.collectionCounter(tenantId, 'IDENTITY_PROVIDERS')))?.count,
    /** The items of a tenant's partition (record, counters, providers) as stored. */
    async tenantPartition(tenantId: string) {
      const out = await runtime.db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': `TENANT#${tenantId}` },
          ConsistentRead: true,
        }),
      );
      return out.Items ?? [];
    },
  };
}

export type IdentityProvidersFixture = Awaited<ReturnType<typeof identityProvidersFixture>>;

/** A valid create body with a fresh provider_name and issuer; `extra` overrides. */
export function providerBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return { provider_name: `idp-${n}`, provider_type: 'oidc', issuer: `https://idp-${n}.example.com`, client_id: `rp-${n}`, ...extra };
}

export const IDP_SCOPES = 'read:identity_providers create:identity_providers update:identity_providers delete:identity_providers';

/** Every key of a provider response without `fields` for a body of `providerBody()` alone. */
export const PROVIDER_KEYS = [
  'client_id',
  'created_at',
  'created_by',
  'enabled',
  'has_client_secret',
  'id',
  'issuer',
  'provider_name',
  'provider_type',
  'scopes',
  'tenant_id',
  'updated_at',
  'updated_by',
];
