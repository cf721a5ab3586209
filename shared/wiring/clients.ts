/**
 * The Clients functions' dependencies (functions/clients/), built from the runtime once per
 * container. Only handlers import this folder (docs/architecture.md "Composition root").
 */
import { generateClientSecret } from '../crypto/client-secret.ts';
import type { ClientDeps } from '../management/clients/client-deps.ts';
import { clientManagementScopes } from '../management/held-scopes.ts';
import { DEFAULT_TENANT_ID } from '../records/tenant-record.ts';
import type { Runtime } from '../runtime.ts';
import { clientLinksRepository } from '../store/clients/client-links-repository.ts';
import { readClientPartition } from '../store/clients/client-partition.ts';
import { clientPermissionsRepository } from '../store/clients/client-permissions-repository.ts';
import { clientsRepository } from '../store/clients/clients-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { scopesRepository } from '../store/resources/scopes-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { perRuntime } from './per-runtime.ts';
import { forgetClient, oauthDeps } from './token-path/token-path-records.ts';

/** The composition of ClientDeps from the runtime, once per runtime (per container). */
export const clientDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): ClientDeps => {
  const { db, config, now, secretBox } = runtime;
  const table = config.tableName;
  return {
    clients: clientsRepository(db, table, now, secretBox),
    links: clientLinksRepository(db, table, now),
    permissions: clientPermissionsRepository(db, table, now),
    resources: resourcesRepository(db, table, now, secretBox),
    scopes: scopesRepository(db, table, now),
    tenants: tenantsRepository(db, table, now),
    readPartition: (clientId) => readClientPartition(db, table, clientId),
    secretBox,
    generateSecret: generateClientSecret,
    multiTenant: config.multiTenant,
    cursorKey: () => runtime.serviceSecret('cursor'),
    now,
    forget: (clientId) => forgetClient(runtime, clientId),
    managementScopesOf: (clientId) => clientManagementScopes(clientId, oauthDeps(runtime)),
    managementApi: () => oauthDeps(runtime).findResource(DEFAULT_TENANT_ID, config.managementAudience),
  };
});
