/**
 * The User Identities functions' dependencies (functions/users/*-identit*: list, link, unlink),
 * built from the runtime once per container.
 */
import type { UserIdentityDeps } from '../management/users/user-identity-deps.ts';
import type { Runtime } from '../runtime.ts';
import { identityProviderReads } from '../store/federation/identity-providers-repository.ts';
import { userIdentitiesRepository } from '../store/users/user-identities-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const userIdentityDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): UserIdentityDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    identities: userIdentitiesRepository(db, config.tableName, now),
    providers: identityProviderReads(db, config.tableName),
    cursorKey: () => runtime.serviceSecret('cursor'),
    secretBox,
  };
});
