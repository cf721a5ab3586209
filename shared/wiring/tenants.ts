/** The Tenants functions' dependencies (functions/tenants/), built from the runtime once per container. */
import type { TenantAdminDeps } from '../management/tenants/tenant-admin-deps.ts';
import type { TenantDeps } from '../management/tenants/tenant-deps.ts';
import type { Runtime } from '../runtime.ts';
import { tenantAdminsRepository } from '../store/tenants/tenant-admins-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';
import { forgetUser } from './token-path/user-token-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const tenantDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): TenantDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
    now,
  };
});

/** The Tenant admins routes' dependencies: the Tenants ones, the admin links and the users they name. */
export const tenantAdminDeps = /* @__PURE__ */ perRuntime(
  (runtime: Runtime): TenantAdminDeps => ({
    ...tenantDeps(runtime),
    tenantAdmins: tenantAdminsRepository(runtime.db, runtime.config.tableName, runtime.now),
    users: usersRepository(runtime.db, runtime.config.tableName, runtime.now),
    forgetUser: (userId) => forgetUser(runtime, userId),
  }),
);
