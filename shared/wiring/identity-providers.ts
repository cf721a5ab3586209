/** The Tenant Identity Providers functions' dependencies (functions/identity-providers/), built from the runtime once per container. */
import type { IdentityProviderDeps } from '../management/identity-providers/identity-provider-deps.ts';
import type { Runtime } from '../runtime.ts';
import { identityProvidersRepository } from '../store/federation/identity-providers-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const identityProviderDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): IdentityProviderDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    providers: identityProvidersRepository(db, config.tableName, now),
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    allowLoopbackHttp: config.federation.allowLoopbackHttp,
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
  };
});
