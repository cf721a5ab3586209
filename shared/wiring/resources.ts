/** The Resources functions' dependencies (functions/resources/), built from the runtime once per container. */
import type { ResourceDeps } from '../management/resources/resource-deps.ts';
import type { Runtime } from '../runtime.ts';
import { clientLinksRepository } from '../store/clients/client-links-repository.ts';
import { clientsRepository } from '../store/clients/clients-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { scopesRepository } from '../store/resources/scopes-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { perRuntime } from './per-runtime.ts';
import { forgetClient, forgetResources } from './token-path/token-path-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const resourceDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): ResourceDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    scopes: scopesRepository(db, config.tableName, now),
    links: clientLinksRepository(db, config.tableName, now),
    clients: clientsRepository(db, config.tableName, now, secretBox),
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    managementAudience: config.managementAudience,
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
    forgetResources: () => forgetResources(runtime),
    forgetClient: (clientId) => forgetClient(runtime, clientId),
  };
});
