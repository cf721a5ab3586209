/**
 * The federated-user use case's dependencies (shared/oauth/federation/resolve-federated-user.ts):
 * token exchange and federated login find or create the user of an external identity with them.
 */
import type { FederatedUserDeps } from '../oauth/federation/resolve-federated-user.ts';
import type { Runtime } from '../runtime.ts';
import { userIdentitiesRepository } from '../store/users/user-identities-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const federatedUserDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): FederatedUserDeps => {
  const { db, config, now } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    identities: userIdentitiesRepository(db, config.tableName, now),
  };
});
