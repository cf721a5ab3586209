import type { SecretBox } from '../../keys/key-store.ts';
import type { RoleLinksRepository } from '../../store/rbac/role-links-repository.ts';
import type { RolesRepository } from '../../store/rbac/roles-repository.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { ScopesRepository } from '../../store/resources/scopes-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the Roles use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface RoleDeps {
  readonly roles: RolesRepository;
  /** Role permissions and members (both ends). */
  readonly roleLinks: RoleLinksRepository;
  readonly users: Pick<UsersRepository, 'get'>;
  readonly resources: Pick<ResourcesRepository, 'get'>;
  readonly scopes: Pick<ScopesRepository, 'list'>;
  readonly tenants: Pick<TenantsRepository, 'get'>;
  /** docs/contract.md §4 multi-tenant mode (a stage setting). */
  readonly multiTenant: boolean;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  /** The presenter opens sealed secrets with it (a Role carries none). */
  readonly secretBox: SecretBox;
  readonly now: () => Date;
  /** Drops this container's cached roles and groups after a role's permissions or the role changed (rbac-records.ts). */
  readonly forgetRbacRecords: () => void;
}
