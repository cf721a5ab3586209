/** The account page's dependencies (functions/pages/account.ts), built from the runtime once per container. */
import type { AccountDeps } from '../browser/account/account-deps.ts';
import { hashPassword, verifyPassword } from '../crypto/password-hash.ts';
import type { Runtime } from '../runtime.ts';
import { consentsRepository } from '../store/sessions/consents-repository.ts';
import { refreshTokensRepository } from '../store/sessions/refresh-tokens-repository.ts';
import { tenantsRepository } from '../store/tenants/tenants-repository.ts';
import { loginFailuresRepository } from '../store/users/login-failures-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { browserDeps } from './pages.ts';
import { perRuntime } from './per-runtime.ts';
import { forgetUser } from './token-path/user-token-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const accountDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): AccountDeps => {
  const { db, config, now } = runtime;
  const table = config.tableName;
  const tenants = tenantsRepository(db, table, now);
  return {
    ...browserDeps(runtime),
    grants: consentsRepository(db, table, now, refreshTokensRepository(db, table, now)),
    users: usersRepository(db, table, now),
    hashPassword: (password: string) => hashPassword(password),
    verifyPassword,
    loginFailures: loginFailuresRepository(db, table, now, config.login),
    forget: (userId: string) => forgetUser(runtime, userId),
    tenantExists: async (tenantId: string) => (await tenants.get(tenantId)) !== undefined,
    passkeyPolicy: config.passkeys.policy,
  };
});
