import { hashPassword, verifyPassword } from '../../crypto/password-hash.ts';
import type { SecretBox } from '../../keys/key-store.ts';
import { perRuntime } from '../../per-runtime.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { Runtime } from '../../runtime.ts';
import { type TenantsRepository, tenantsRepository } from '../../store/tenants/tenants-repository.ts';
import { type LoginFailuresRepository, loginFailuresRepository } from '../../store/users/login-failures-repository.ts';
import { type OtpRepository, otpRepository } from '../../store/users/otp-repository.ts';
import { type UsersRepository, usersRepository } from '../../store/users/users-repository.ts';
import { oauthDeps } from '../../wiring/token-path/token-path-records.ts';
import { forgetUser } from '../../wiring/token-path/user-token-records.ts';
import { userManagementScopes } from '../held-scopes.ts';

/** What the Users use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface UserDeps {
  readonly users: UsersRepository;
  readonly tenants: Pick<TenantsRepository, 'get'>;
  /** docs/contract.md §4 multi-tenant mode (a stage setting). */
  readonly multiTenant: boolean;
  /** argon2id (shared/crypto/password-hash.ts); tests may hand a cheaper one. */
  readonly hashPassword: (password: string) => Promise<string>;
  /** Constant time; false for a user without a password (after the same work). */
  readonly verifyPassword: (password: string, hash: string | undefined) => Promise<boolean>;
  /** The user's TOTP authenticator (sealed secret; shared/store/users/otp-repository.ts). */
  readonly otp: Pick<OtpRepository, 'enroll' | 'remove'>;
  /** docs/contract.md §7.3 consecutive-failure count: a self password change's `old_password` counts like a login. */
  readonly loginFailures: Pick<LoginFailuresRepository, 'admit' | 'reset'>;
  /** The `issuer` of otpauth URIs (the service's `{base_url}`). */
  readonly issuer: string;
  readonly secretBox: SecretBox;
  /** The list cursors' HMAC key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
  readonly now: () => Date;
  /**
   * Drop this container's cached copy of the user (token checks, claims; store/user-token-records.ts),
   * so a block, delete, password or profile change is seen here at once and elsewhere within the
   * cache TTL (RECORD_CACHE_TTL_SECONDS).
   */
  readonly forget: (userId: string) => void;
  /** The management-API scopes the user effectively holds (RBAC, through the 1 s caches): what taking it over would give. */
  readonly managementScopesOf: (user: UserRecord) => Promise<ReadonlySet<string>>;
}

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const userDeps = perRuntime((runtime: Runtime): UserDeps => {
  const { db, config, now, secretBox } = runtime;
  return {
    users: usersRepository(db, config.tableName, now),
    tenants: tenantsRepository(db, config.tableName, now),
    multiTenant: config.multiTenant,
    hashPassword: (p) => hashPassword(p),
    otp: otpRepository(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
    loginFailures: loginFailuresRepository(db, config.tableName, now, config.login),
    issuer: config.issuer,
    verifyPassword,
    secretBox,
    cursorKey: () => runtime.serviceSecret('cursor'),
    now,
    forget: (userId) => forgetUser(runtime, userId),
    managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
  };
});
