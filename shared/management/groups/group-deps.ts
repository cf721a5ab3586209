import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { type GroupLinksRepository, groupLinksRepository } from '../../store/rbac/group-links-repository.ts';
import { type GroupsRepository, groupsRepository } from '../../store/rbac/groups-repository.ts';
import { type RolesRepository, rolesRepository } from '../../store/rbac/roles-repository.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type TenantsRepository, tenantsRepository } from '../../store/tenants/tenants-repository.ts';
import { forgetRbacRecords } from '../../store/token-path/rbac-records.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';
import { forgetUser } from '../../wiring/token-path/user-token-records.ts';

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

export const groupDeps = perRuntime((runtime: Runtime): GroupDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    groups: groupsRepository(db, config.tableName, now),
    links: groupLinksRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    roles: rolesRepository(db, config.tableName, now),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
    now,
    forgetUser: (userId) => forgetUser(runtime, userId),
    forgetRbacRecords: () => forgetRbacRecords(runtime),
  };
});
