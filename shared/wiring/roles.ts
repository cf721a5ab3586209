/** The Roles functions' dependencies (functions/roles/), built from the runtime once per container. */
import type { RoleDeps } from '../management/roles/role-deps.ts';
import type { Runtime } from '../runtime.ts';
import { roleLinksRepository } from '../store/rbac/role-links-repository.ts';
import { rolesRepository } from '../store/rbac/roles-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { scopesRepository } from '../store/resources/scopes-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { forgetRbacRecords } from '../store/token-path/rbac-records.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const roleDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): RoleDeps => {
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
