import { oauthError } from '../../errors.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';

/**
 * Plan decision 10: wrong secret, unknown user, blocked user: one answer, so none of them tells
 * an attacker anything the others do not.
 */
export const invalidCredentials = () => oauthError(400, 'invalid_grant', 'The credentials are not valid.');

/** How a grant checks the secret of a user it found (or of none: the same work, then false). */
export type SecretCheck = (user: UserRecord | undefined) => Promise<boolean>;

/**
 * The login of the password and otp grants (API.md §5.1, §7.3), for the user whose email,
 * username or phone number is `login` in the client's tenant:
 * 1. find the user (plan decision 6: the same reads whether or not the login exists);
 * 2. count the attempt BEFORE the secret is checked (login-failures-repository.ts): a user with
 *    `lockoutFailures` counted attempts gets 429 `too_many_requests` with `Retry-After`, right
 *    secret or not; an unknown login does the same write work and is never refused;
 * 3. check the secret (for an unknown user too, against a dummy: equal time);
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
  rehash?: (user: UserRecord) => Promise<{ oldHash: string; newHash: string } | undefined>,
): Promise<TokenResponse> {
  const user = await deps.findUserByLogin(client.tenant_id, login);
  if (user) {
    const admission = await deps.login.failures.admit(user.id);
    if (!admission.admitted) {
      throw oauthError(429, 'too_many_requests', 'Too many failed attempts for this user; retry later.', {
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
      });
    }
  } else {
    await deps.login.failures.admitUnknown();
  }
  const ok = await check(user);
  if (!user || !ok || user.blocked) throw invalidCredentials();

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
    (async () => deps.login.recordLogin({ userId: user.id, at, rehash: await rehash?.(user) }))(),
  ]);
  return tokens;
}
