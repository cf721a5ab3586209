import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { type ClientLinksRepository, clientLinksRepository } from '../../store/clients/client-links-repository.ts';
import { type ClientsRepository, clientsRepository } from '../../store/clients/clients-repository.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type ScopesRepository, scopesRepository } from '../../store/resources/scopes-repository.ts';
import { type TenantsRepository, tenantsRepository } from '../../store/tenants/tenants-repository.ts';
import { forgetClient, forgetResources } from '../../wiring/token-path/token-path-records.ts';

/** What the Resources, Resource Scopes and Resource Clients use cases depend on (docs/design.md §3.2). */
export interface ResourceDeps {
  readonly resources: ResourcesRepository;
  readonly scopes: ScopesRepository;
  readonly links: ClientLinksRepository;
  readonly clients: ClientsRepository;
  readonly tenants: TenantsRepository;
  /** docs/contract.md §4 multi-tenant mode (a stage setting). */
  readonly multiTenant: boolean;
  /** The management API's identifier (docs/contract.md §4): reserved for the system resource. */
  readonly managementAudience: string;
  readonly secretBox: SecretBox;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /**
   * Drop this container's cached token-path records (docs/tokens.md "Hot path and caching"), so a
   * change is seen by the next token at once here and within the cache TTL elsewhere.
   */
  readonly forgetResources: () => void;
  readonly forgetClient: (clientId: string) => void;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const resourceDeps = perRuntime((runtime: Runtime): ResourceDeps => {
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
