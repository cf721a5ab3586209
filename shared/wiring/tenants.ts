/** The Tenants functions' dependencies (functions/tenants/), built from the runtime once per container. */
import type { TenantDeps } from '../management/tenants/tenant-deps.ts';
import type { Runtime } from '../runtime.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { perRuntime } from './per-runtime.ts';

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
