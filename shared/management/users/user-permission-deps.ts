import type { HeldPermissions } from '../../store/rbac/held-permissions.ts';
import type { ResourcesRepository } from '../../store/resources/resources-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the direct user permission use cases depend on (docs/design.md §3.2). */
export interface UserPermissionDeps {
  readonly users: Pick<UsersRepository, 'get'>;
  /** The user's direct permissions (holder kind `user`: store/held-permissions.ts). */
  readonly permissions: HeldPermissions;
  /** To know which granted scopes are the management API's (no escalation, docs/contract.md §8). */
  readonly resources: Pick<ResourcesRepository, 'get'>;
  /** Drops this container's cached copy of the user whose permissions changed. */
  readonly forgetUser: (userId: string) => void;
}
