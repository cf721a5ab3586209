import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { Runtime } from '../../runtime.ts';
import { type RoleLinksRepository, roleLinksRepository } from '../../store/rbac/role-links-repository.ts';
import { type RolesRepository, rolesRepository } from '../../store/rbac/roles-repository.ts';
import { type ResourcesRepository, resourcesRepository } from '../../store/resources/resources-repository.ts';
import { type ScopesRepository, scopesRepository } from '../../store/resources/scopes-repository.ts';
import { type TenantsRepository, tenantsRepository } from '../../store/tenants/tenants-repository.ts';
import { forgetRbacRecords } from '../../store/token-path/rbac-records.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';

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

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const roleDeps = perRuntime((runtime: Runtime): RoleDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    roles: rolesRepository(db, config.tableName, now),
    roleLinks: roleLinksRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    resources: resourcesRepository(db, config.tableName, now, secretBox),
    scopes: scopesRepository(db, config.tableName, now),
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
    now,
    forgetRbacRecords: () => forgetRbacRecords(runtime),
  };
});
