import { SYSTEM_ACTOR_ID } from '#shared/records/common.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { clientLinksRepository } from '#shared/store/clients/client-links-repository.ts';
import { clientPermissionsRepository } from '#shared/store/clients/client-permissions-repository.ts';
import { resourcesRepository } from '#shared/store/resources/resources-repository.ts';
import { scopesRepository } from '#shared/store/resources/scopes-repository.ts';
import { forgetClient, forgetResources } from '#shared/wiring/token-path/token-path-records.ts';
import { createTenant } from '../service/management-api.ts';
import type { ResourcesFixture } from './resources-fixture.ts';

/**
 * Multi-tenant fixtures made with the repositories, without HTTP (a test of the Tenants API itself uses POST /tenants).
 *
 * A non-global client gets its management token from /token like anyone: the management API is
 * the system resource of the default tenant, shared by every tenant (docs/contract.md §4); the client is
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
    createTenant: (name?: string) => createTenant(runtime, name),

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
