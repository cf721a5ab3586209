import { generateClientSecret } from '../../clients/client-secret.ts';
import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { Runtime } from '../../runtime.ts';
import { type ClientLinksRepository, clientLinksRepository } from '../../store/clients/client-links-repository.ts';
import { type ClientPartition, readClientPartition } from '../../store/clients/client-partition.ts';
import { type ClientPermissionsRepository, clientPermissionsRepository } from '../../store/clients/client-permissions-repository.ts';
import { type ClientsRepository, clientsRepository } from '../../store/clients/clients-repository.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type ScopesRepository, scopesRepository } from '../../store/resources/scopes-repository.ts';
import { type TenantsRepository, tenantsRepository } from '../../store/tenants/tenants-repository.ts';
import { forgetClient, oauthDeps } from '../../wiring/token-path/token-path-records.ts';
import { clientManagementScopes } from '../held-scopes.ts';

/**
 * What the Clients use cases depend on, passed as an argument (docs/design.md §3.2) so a test can hand
 * them fakes. `forget` drops the client from this container's token cache (docs/tokens.md), so a
 * change is visible to /token and to the management pipeline at once.
 */
export interface ClientDeps {
  clients: ClientsRepository;
  links: ClientLinksRepository;
  permissions: ClientPermissionsRepository;
  resources: Pick<ResourcesRepository, 'get'>;
  scopes: Pick<ScopesRepository, 'list'>;
  tenants: Pick<TenantsRepository, 'get'>;
  /** The client's record, links and permissions in one consistent Query (for expand=all). */
  readPartition: (clientId: string) => Promise<ClientPartition | undefined>;
  secretBox: SecretBox;
  generateSecret: () => string;
  multiTenant: boolean;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  cursorKey: () => Promise<Buffer>;
  now: () => Date;
  forget: (clientId: string) => void;
  /** The management-API scopes the client is granted: what its new secret would hand over. */
  managementScopesOf: (clientId: string) => Promise<ReadonlySet<string>>;
  /** The management API (its id), through the token path's 1 s cache. */
  managementApi: () => Promise<{ id: string } | undefined>;
}

/** The composition of ClientDeps from the runtime, once per runtime (per container). */
export const clientDeps = perRuntime((runtime: Runtime): ClientDeps => {
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
