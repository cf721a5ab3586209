import { oauthError } from '../../errors.ts';
import type { ServiceMetrics } from '../../observability/service-metrics.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { LoginStores, OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';

/**
 * Plan decision 10: wrong secret, unknown user, blocked user: one answer, so none of them tells
 * an attacker anything the others do not.
 */
export const invalidCredentials = () => oauthError(400, 'invalid_grant', 'The credentials are not valid.');

/** `LoginsFailed` by `reason` (shared/observability/service-metrics.ts). */
const LOCKED = ['reason', 'locked'] as const;
const INVALID_CREDENTIALS = ['reason', 'invalid_credentials'] as const;

/** How a grant checks the secret of a user it found (or of none: the same work, then false). */
export interface SecretCheck {
  verify(user: UserRecord | undefined): Promise<boolean>;
  /** A fresh hash to store after a success (password-hash.ts `needsRehash`), if one is due. */
  rehash?(user: UserRecord): Promise<{ oldHash: string; newHash: string } | undefined>;
}

/** Who a login names: the id its marker holds in the tenant, or undefined for an unknown login. */
export interface LoginSubject {
  tenantId: string;
  userId: string | undefined;
}

/**
 * The login of the password and otp grants (API.md §5.1, §7.3), for the user whose email,
 * username or phone number is `login` in the client's tenant:
 * 1. find the user's id (one marker read, the same whether or not the login exists);
 * 2. count the attempt BEFORE the secret is checked (login-failures-repository.ts): a user with
 *    `lockoutFailures` counted attempts gets 429 `too_many_requests` with `Retry-After`, right
 *    secret or not; an unknown login does the same write work and is never refused. The counting
 *    write returns the user: the login's consistent read (a block or a new password is seen at once);
 * 3. check the secret (for an unknown user too, against a dummy: equal time);
 * 4. wrong secret, unknown or blocked user: `invalid_grant`, one message. The counted attempt
 *    stays counted;
 * 5. success: one write records the login on the user and clears the count (with `rehash` when
 *    the grant asks for it), while the user-token core issues the tokens.
 */
export async function logUserIn(
  client: OAuthClient,
  login: string,
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined },
  check: SecretCheck,
  deps: OAuthDeps,
): Promise<TokenResponse> {
  const subject = { tenantId: client.tenant_id, userId: await deps.findUserIdByLogin(client.tenant_id, login) };
  const user = await checkUserSecret(subject, check, deps);
  const at = deps.now();
  const [tokens] = await Promise.all([
    // Only the token parameters go on: the secret stays here.
    issueUserTokens(
      {
        client,
        user,
        request: { scope: request.scope, audience: request.audience, resource: request.resource },
        authTime: Math.floor(at.getTime() / 1000),
      },
      deps,
    ),
    (async () => deps.login.recordLogin({ userId: user.id, at, rehash: await check.rehash?.(user) }))(),
  ]);
  return tokens;
}

/**
 * Steps 2 to 4 above for a login already looked up: counts the attempt, checks the secret, and
 * returns the user, or throws 429 `too_many_requests` (with `Retry-After`) or
 * `invalidCredentials()`. Nothing is recorded: the caller does that once the whole login
 * succeeded (the hosted login page's password step is followed by its OTP step, and only their
 * success clears the count).
 */
export async function checkUserSecret(
  subject: LoginSubject,
  check: SecretCheck,
  deps: { login: Pick<LoginStores, 'failures'>; metrics: ServiceMetrics },
): Promise<UserRecord> {
  const admission = await deps.login.failures.admit(subject.userId);
  if (!admission.admitted) {
    deps.metrics.count('LoginsFailed', LOCKED);
    throw oauthError(429, 'too_many_requests', 'Too many failed attempts for this user; retry later.', {
      headers: { 'Retry-After': String(admission.retryAfterSeconds) },
    });
  }
  // Login markers are per tenant, so the user is the tenant's; checked anyway: another tenant's
  // user is nobody here.
  const user = admission.user?.tenant_id === subject.tenantId ? admission.user : undefined;
  const ok = await check.verify(user);
  if (!user || !ok || user.blocked) {
    deps.metrics.count('LoginsFailed', INVALID_CREDENTIALS);
    throw invalidCredentials();
  }
  return user;
}
