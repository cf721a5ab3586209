import type { KeyStore } from '../keys/key-store.ts';
import type { ServiceMetrics } from '../observability/service-metrics.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { OAuthClient, TokenResource } from '../ports/token-path.ts';
import type { RbacRecordReads } from '../rbac/effective-permissions.ts';
import type { IdTokenSigningAlg } from '../records/client-record.ts';
import type { RevocationRef } from '../records/revocation-ref.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { RevocationsRepository } from '../store/revocations/revocations-repository.ts';
import type { AuthorizationCodesRepository } from '../store/sessions/authorization-codes-repository.ts';
import type { DeviceCodePolls } from '../store/sessions/device-code-polls.ts';
import type { OneTimeIds } from '../store/sessions/one-time-ids-repository.ts';
import type { RefreshTokensRepository, StoredRefreshToken } from '../store/sessions/refresh-tokens-repository.ts';
import type { LoginFailuresRepository } from '../store/users/login-failures-repository.ts';
import type { OtpChecks } from '../store/users/otp-checks.ts';
import type { UserLoginWrites } from '../store/users/user-login-writes.ts';
import type { LoginHintWrite } from '../store/users/user-markers.ts';
import type { AccessTokenClaims } from '../tokens/verify-access-token.ts';
import type { TtlCache } from '../ttl-cache.ts';
import type { ClientAssertionVerifier } from './client-auth/client-assertion.ts';
import type { DpopNonces } from './dpop/dpop-nonces.ts';
import type { UserTokenReads } from './user-token-state.ts';

export type { OAuthClient, TokenResource } from '../ports/token-path.ts';

/**
 * What a grant asks the cold token read to fetch besides the client and the signing keys
 * (grants/token-grant.ts `preload`). Each member is an item the request names by itself; a grant
 * that needs a new kind of item adds a member here and its key in store/token-path/batch-read-planner.ts `preload`.
 */
export interface TokenPreload {
  /** A Resource by `identifier_url` (its identifier marker, read in the client's tenant). */
  audience?: string | undefined;
  /**
   * Other spellings of `audience`, read along with it whenever it is read and never on their own
   * (so a warm token reads nothing): an error can then say which one exists at no read of its own.
   */
  audienceAlternates?: readonly string[];
  /**
   * The refresh token presented (the `refresh_token` grant): when this read happens anyway (the
   * client or the signing-key states are stale) it takes the token's item and its user along, so
   * the grant's `findRefreshToken` reads nothing more and a refresh stays one read call.
   */
  refreshToken?: string | undefined;
}

/** What the password and otp grants store besides the user-token core (grants/user-login.ts, docs/users.md "Brute force"). */
export interface LoginStores {
  failures: LoginFailuresRepository;
  otp: OtpChecks;
  recordLogin: UserLoginWrites;
  /** The prefix of the user's hash onto its login markers, when an attempt found another one (user-markers.ts). */
  writeLoginHint: LoginHintWrite;
}

/** Dependencies of the OAuth endpoints, passed as arguments (docs/design.md §3.2). */
export interface OAuthDeps {
  findClient(clientId: string): Promise<OAuthClient | undefined>;
  findResource(tenantId: string, identifierUrl: string): Promise<TokenResource | undefined>;
  /** The Resource if this container holds it now, without reading (for hints on error paths). */
  cachedResource(tenantId: string, identifierUrl: string): TokenResource | undefined;
  /**
   * Reads, in one call, what a token request for this client will look up (the client, what its
   * grant's `preload` names, the signing keys) and the caches do not hold (store/token-path/batch-read-planner.ts); the
   * lookups that follow then hit the caches. Never decides anything: authentication and every
   * check still run on what the finders return.
   */
  preload(clientId: string, wants: TokenPreload): Promise<void>;
  /**
   * The same for `/tokeninfo` and `/introspect`: the caller's client, the clients and revocation
   * entries the presented tokens name (read from their unverified payloads: this only decides
   * what to read, never what to answer) and the signing keys, in one call.
   */
  preloadIntrospection(callerClientId: string | undefined, tokens: readonly string[]): Promise<void>;
  /**
   * The same for one bearer token presented on its own (`/userinfo`), warm or cold: the token
   * names everything its check reads, so what the caches lack is one read, and nothing when they hold it all.
   */
  preloadBearer(token: string): Promise<void>;
  /**
   * A user by id, through the 1 s record cache (staleness bound: docs/tokens.md
   * "User tokens"). Storage-only fields included (the caller never hands the record out).
   */
  findUser(userId: string): Promise<UserRecord | undefined>;
  /**
   * The user whose email, username or phone number is `login` in the tenant: ONE GetItem of the
   * uniqueness marker the login's form names (`@`: an email; a leading `+`: a phone number; else a
   * username, which can hold neither: user-body-schemas.ts), which gives the user's id and the
   * prefix of its password hash (user-markers.ts `loginMarkerAttributes`). An unknown login does
   * the same read, so the answer time does not tell whether a login exists (docs/contract.md §7.3). The user
   * itself is read by the counting write of the attempt (login-failures-repository.ts).
   */
  findLogin(tenantId: string, login: string): Promise<{ userId: string; passwordPrefix: string | undefined } | undefined>;
  /**
   * The refresh token with this value, read in ONE BatchGetItem with the user its value names
   * (unless that user is cached), so the `findUser` that follows is a cache hit: a refresh costs
   * one read and one write (docs/tokens.md "Refresh tokens"). When this request's `preload` read
   * the token already (a stale client or key state), that read is taken and nothing more is read.
   * Undefined when unknown or expired.
   */
  findRefreshToken(token: string): Promise<StoredRefreshToken | undefined>;
  refreshTokens: RefreshTokensRepository;
  /** Authorization codes (the `authorization_code` grant; /authorize issues them). */
  authorizationCodes: AuthorizationCodesRepository;
  keys: KeyStore;
  /** The ID token algorithms this stage signs with, the default first (user-tokens/id-token-algs.ts). */
  idTokenAlgs: readonly IdTokenSigningAlg[];
  revocations: RevocationsRepository;
  /** The password and otp grants' lockout counter, TOTP authenticators and login writes (grants/user-login.ts). */
  login: LoginStores;
  /**
   * The `device_code` grant's polls of RFC 8628 device authorizations; `/device_code` and the
   * `/device` page take the whole repository (shared/wiring/authorize.ts, shared/wiring/pages.ts).
   */
  deviceCodes: DeviceCodePolls;
  /** `jti`s of client assertions and DPoP proofs, each accepted once (docs/client-authentication.md). */
  oneTimeIds: OneTimeIds;
  /** Server-provided DPoP nonces (RFC 9449 §8), stateless (dpop/dpop-nonces.ts). */
  dpopNonces: DpopNonces;
  /**
   * The `private_key_jwt` check (client-auth/verify-client-assertion.ts), loaded with the first
   * client assertion so that a token request with a secret loads none of its code or keys
   * (docs/client-authentication.md "private_key_jwt"); built once per container.
   */
  clientAssertions(): Promise<ClientAssertionVerifier>;
  /** The user and login family behind a user token, through 1 s caches (user-token-state.ts). */
  userTokens: UserTokenReads;
  /**
   * The role and group records of users' effective permissions (shared/rbac/), through 1 s
   * record caches: ≤ 3 BatchGetItem cold, none warm (docs/rbac.md).
   */
  rbac: RbacRecordReads;
  issuer: string;
  /** `{issuer}/identity/v1/`: the audience of management tokens (docs/contract.md §4). */
  managementAudience: string;
  now: () => Date;
  /** Tokens whose signature already verified, by the token's SHA-256 (verify-resource-token.ts). */
  verifiedTokens: TtlCache<VerifiedToken>;
  /** Tokens issued, failed logins, cache hits (shared/observability/service-metrics.ts). */
  metrics: ServiceMetrics;
  /** Security events (docs/events.md): folded into a grant's own write, or one write of their own. */
  events: EventLog;
}

/** A token whose signature, lifetime and claims checked out, with what binds its revocation (docs/tokens.md). */
export interface VerifiedToken {
  claims: AccessTokenClaims;
  ref: RevocationRef;
}
