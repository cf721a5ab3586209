import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { type HeldPermissions, heldPermissions } from '../../store/rbac/held-permissions.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';
import { forgetUser } from '../../wiring/token-path/user-token-records.ts';

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

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const userPermissionDeps = perRuntime((runtime: Runtime): UserPermissionDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    permissions: heldPermissions(db, config.tableName, now, 'user'),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    forgetUser: (userId) => forgetUser(runtime, userId),
  };
});
