import type { SecretBox } from '../../keys/key-store.ts';
import type { ClientLinksRepository } from '../../store/clients/client-links-repository.ts';
import type { ClientPartition } from '../../store/clients/client-partition.ts';
import type { ClientPermissionsRepository } from '../../store/clients/client-permissions-repository.ts';
import type { ClientsRepository } from '../../store/clients/clients-repository.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { ScopesRepository } from '../../store/resources/scopes-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';

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
