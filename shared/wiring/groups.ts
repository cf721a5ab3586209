/** The Groups functions' dependencies (functions/groups/), built from the runtime once per container. */
import type { GroupDeps } from '../management/groups/group-deps.ts';
import type { Runtime } from '../runtime.ts';
import { groupLinksRepository } from '../store/rbac/group-links-repository.ts';
import { groupsRepository } from '../store/rbac/groups-repository.ts';
import { rolesRepository } from '../store/rbac/roles-repository.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { forgetRbacRecords } from '../store/token-path/rbac-records.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';
import { forgetUser } from './token-path/user-token-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const groupDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): GroupDeps => {
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
