import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { forgetClient, forgetResources } from '../../../shared/oauth/oauth-runtime.ts';
import { SYSTEM_ACTOR_ID } from '../../../shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '../../../shared/records/tenant-record.ts';
import { clientLinksRepository } from '../../../shared/store/client-links-repository.ts';
import { clientPermissionsRepository } from '../../../shared/store/client-permissions-repository.ts';
import { entity } from '../../../shared/store/entity.ts';
import { keys } from '../../../shared/store/keys.ts';
import { resourcesRepository } from '../../../shared/store/resources-repository.ts';
import { scopesRepository } from '../../../shared/store/scopes-repository.ts';
import type { ResourcesFixture } from './resources-fixture.ts';

/**
 * Multi-tenant fixtures made with the repositories (the Tenants endpoints do not exist yet).
 *
 * A non-global client gets its management token from /token like anyone: the management API is
 * the system resource of the default tenant, shared by every tenant (API.md §4); the client is
 * authorized and granted on it, and its token carries its own tenant.
 */
export function tenancyFixture(fx: ResourcesFixture) {
  const { runtime } = fx.svc.stack;
  const table = runtime.config.tableName;
  const resources = resourcesRepository(runtime.db, table, runtime.now, runtime.secretBox);
  const scopes = scopesRepository(runtime.db, table, runtime.now);
  const links = clientLinksRepository(runtime.db, table, runtime.now);
  const permissions = clientPermissionsRepository(runtime.db, table, runtime.now);

  return {
    /** A tenant record, written as tenants-repository.ts writes the default one. */
    async createTenant(name = `tenant-${randomUUID()}`): Promise<string> {
      const id = randomUUID();
      const at = runtime.now().toISOString();
      const item = { id, tenant_name: name, tenant_metadata: [], is_default: false, version: 1, created_by: SYSTEM_ACTOR_ID, created_at: at, updated_by: SYSTEM_ACTOR_ID, updated_at: at };
      await runtime.db.send(new PutCommand({ TableName: table, Item: { ...keys.tenant(id), GSI1PK: keys.tenantsCollection, GSI1SK: id, ...entity('Tenant'), ...item } }));
      return id;
    },

    /** A non-global confidential client of `tenantId` and a real /token management token for it. */
    async tenantAdmin(tenantId: string, scope = 'read:resources create:resources update:resources delete:resources') {
      const client = await fx.createClient({ tenant_id: tenantId, is_global: false, client_name: `admin of ${tenantId}` });
      const apiId = (await resources.findIdByIdentifier(DEFAULT_TENANT_ID, fx.svc.managementAudience))!;
      const all = await scopes.list(apiId);
      await links.authorize(client.id, [apiId], SYSTEM_ACTOR_ID);
      await permissions.grant(client.id, [{ resource_id: apiId, scopes: all.map((s) => s.id) }], SYSTEM_ACTOR_ID);
      forgetResources(runtime);
      forgetClient(runtime, client.id);
      const res = await fx.token(client.id, client.secret, fx.svc.managementAudience, scope);
      if (res.status !== 200) throw new Error(`tenant token: ${res.status} ${JSON.stringify(res.body)}`);
      return { client, token: res.body.access_token as string, managementApiId: apiId };
    },
  };
}
