import type { SecretBox } from '../../keys/key-store.ts';
import type { ClientLinksRepository } from '../../store/clients/client-links-repository.ts';
import type { ClientsRepository } from '../../store/clients/clients-repository.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { ScopesRepository } from '../../store/resources/scopes-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';

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
