import type { SecretBox } from '../../keys/key-store.ts';
import type { GroupLinksRepository } from '../../store/rbac/group-links-repository.ts';
import type { GroupsRepository } from '../../store/rbac/groups-repository.ts';
import type { RolesRepository } from '../../store/rbac/roles-repository.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the Groups use cases depend on (docs/design.md §3.2). */
export interface GroupDeps {
  readonly groups: GroupsRepository;
  readonly links: GroupLinksRepository;
  readonly users: Pick<UsersRepository, 'get'>;
  readonly roles: Pick<RolesRepository, 'get'>;
  /** To know which of a role's scopes are the management API's (no escalation, docs/contract.md §8). */
  readonly resources: Pick<ResourcesRepository, 'get'>;
  readonly tenants: Pick<TenantsRepository, 'get'>;
  readonly multiTenant: boolean;
  readonly secretBox: SecretBox;
  readonly cursorKey: () => Promise<Buffer>;
  readonly now: () => Date;
  /** Drops this container's cached copy of a user whose groups changed. */
  readonly forgetUser: (userId: string) => void;
  /** Drops this container's cached roles and groups after a change of the RBAC graph (rbac-records.ts). */
  readonly forgetRbacRecords: () => void;
}
