import type { SecretBox } from '../../keys/key-store.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { IdentityProviderReads } from '../../store/federation/identity-providers-repository.ts';
import type { TenantsRepository } from '../../store/tenants/tenants-repository.ts';
import type { LoginFailuresRepository } from '../../store/users/login-failures-repository.ts';
import type { OtpRepository } from '../../store/users/otp-repository.ts';
import type { UserIdentitiesRepository } from '../../store/users/user-identities-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';

/** What the Users use cases depend on, passed as an argument (docs/design.md §3.2). */
export interface UserDeps {
  readonly users: UsersRepository;
  readonly tenants: Pick<TenantsRepository, 'get'>;
  /** `expand=all`: the user's identities (one Query of its partition) and their providers (`provider_data`). */
  readonly identities: Pick<UserIdentitiesRepository, 'list'>;
  readonly providers: Pick<IdentityProviderReads, 'byId'>;
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
