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
  /**
   * True when `verify` writes nothing (the password hash): it then runs while the attempt is being
   * counted, and its answer is dropped if the attempt is refused. A check that writes (the OTP
   * step, its failure count) runs only once the attempt was admitted.
   */
  writesNothing: boolean;
  /** A fresh hash to store after a success (password-hash.ts `needsRehash`), if one is due. */
  rehash?(user: UserRecord): Promise<{ oldHash: string; newHash: string } | undefined>;
}

/**
 * The login of the password and otp grants (API.md §5.1, §7.3), for the user whose email,
 * username or phone number is `login` in the client's tenant:
 * 1. find the user (plan decision 6: the same reads whether or not the login exists);
 * 2. count the attempt BEFORE the secret is checked (login-failures-repository.ts): a user with
 *    `lockoutFailures` counted attempts gets 429 `too_many_requests` with `Retry-After`, right
 *    secret or not; an unknown login does the same write work and is never refused;
 * 3. check the secret (for an unknown user too, against a dummy: equal time); a check that
 *    writes nothing runs alongside step 2, and its answer counts only if the attempt is admitted;
 * 4. wrong secret, unknown or blocked user: `invalid_grant`, one message. The counted attempt
 *    stays counted;
 * 5. success: the count starts again, the login is recorded on the user (with `rehash` when the
 *    grant asks for it), and the user-token core issues the tokens.
 */
export async function logUserIn(
  client: OAuthClient,
  login: string,
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined },
  check: SecretCheck,
  deps: OAuthDeps,
): Promise<TokenResponse> {
  const user = await checkUserSecret(await deps.findUserByLogin(client.tenant_id, login), check, deps);
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
    deps.login.failures.reset(user.id),
    (async () => deps.login.recordLogin({ userId: user.id, at, rehash: await check.rehash?.(user) }))(),
  ]);
  return tokens;
}

/**
 * Steps 2 to 4 above for a user already looked up (or undefined: an unknown login): counts the
 * attempt, checks the secret, and returns the user, or throws 429 `too_many_requests` (with
 * `Retry-After`) or `invalidCredentials()`. Nothing is reset or recorded: the caller does that
 * once the whole login succeeded (the hosted login page's password step is followed by its OTP
 * step, and only their success resets the count).
 */
export async function checkUserSecret(
  user: UserRecord | undefined,
  check: SecretCheck,
  deps: { login: Pick<LoginStores, 'failures'>; metrics: ServiceMetrics },
): Promise<UserRecord> {
  const admitting = user
    ? deps.login.failures.admit(user.id)
    : deps.login.failures.admitUnknown().then(() => ({ admitted: true as const }));
  // The hash (about 80 ms) overlaps the counting write; whatever it finds, a refused attempt is 429.
  const [admission, early] = await Promise.all([admitting, check.writesNothing ? check.verify(user) : undefined]);
  if (!admission.admitted) {
    deps.metrics.count('LoginsFailed', LOCKED);
    throw oauthError(429, 'too_many_requests', 'Too many failed attempts for this user; retry later.', {
      headers: { 'Retry-After': String(admission.retryAfterSeconds) },
    });
  }
  const ok = early ?? (await check.verify(user));
  if (!user || !ok || user.blocked) {
    deps.metrics.count('LoginsFailed', INVALID_CREDENTIALS);
    throw invalidCredentials();
  }
  return user;
}
