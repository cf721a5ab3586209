import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/store/core/table-keys.ts';
import { usersFixture } from './users-fixture.ts';

/**
 * The Users fixture (multi-tenant unless `env` says otherwise) plus Tenants helpers: `createTenantApi`
 * over HTTP, raw reads of the stored items, and a tenant-bound client's token in a tenant.
 */
export async function tenantsFixture(env: Record<string, string> = { MULTI_TENANT: 'true' }) {
  const fx = await usersFixture(env);
  const { runtime } = fx.svc.stack;
  const table = runtime.config.tableName;
  return {
    ...fx,
    /** POST /tenants with a fresh name, expecting 201. */
    async createTenantApi(body: Record<string, unknown> = {}) {
      const res = await fx.call('POST', '/tenants', { body: { tenant_name: `tenant-${randomUUID()}`, ...body } });
      if (res.status !== 201) throw new Error(`create tenant: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
    /** One item as stored (consistent read). */
    async item(key: { PK: string; SK: string }) {
      return (await runtime.db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;
    },
    tenantItem: (id: string) =>
      runtime.db.send(new GetCommand({ TableName: table, Key: keys.tenant(id), ConsistentRead: true })).then((r) => r.Item),
    /** A non-global client of `tenantId` and its management token holding `scopes`. */
    async boundToken(tenantId: string, scopes: string) {
      const client = await fx.createClient({ client_name: `bound ${randomUUID()}`, tenant_id: tenantId, is_global: false });
      return { client, token: await fx.clientToken(client, scopes) };
    },
  };
}

export type TenantsFixture = Awaited<ReturnType<typeof tenantsFixture>>;

export const TENANT_SCOPES = 'read:tenants create:tenants update:tenants delete:tenants';

/** Every key of a Tenant response without `fields` for a tenant created with a name only. */
export const TENANT_KEYS = ['created_at', 'created_by', 'id', 'is_default', 'tenant_metadata', 'tenant_name', 'updated_at', 'updated_by'];
