import * as v from 'valibot';
import { beginPasswordCheck, hashPassword, needsRehash } from '../../crypto/password-hash.ts';
import { isTotpCodeShape } from '../../crypto/totp.ts';
import { oauthError } from '../../errors.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import { acceptTotp, authenticatorOf } from './otp.ts';
import { defineGrant } from './token-grant.ts';
import { logUserIn, type SecretCheck } from './user-login.ts';

const required = v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(1024));

/**
 * RFC 6749 §4.3 resource owner password credentials (docs/contract.md §5.1): `username` is the user's
 * username, email or phone number; the password is checked against its argon2id hash. Never on
 * by default: the client must list `password` in its grant_types (docs/contract.md §5.1, RFC 9700 §2.4
 * "MUST NOT be used"; kept for the spec's first-party clients). Brute force, unknown and blocked
 * users: user-login.ts.
 *
 * A user with an authenticator also sends its code as `otp` (docs/users.md "Second factor"): the
 * hosted login asks for it after the password (docs/contract.md §7.4), and this grant must not be the way
 * round it. Keycloak's direct grant takes the code in the same request; Auth0 answers
 * `mfa_required`. Without `otp` the answer is `invalid_grant` naming the field, given only once
 * the password was right, so it tells nothing to whoever does not have the password.
 */
export const password = defineGrant({
  name: 'password',
  params: v.looseObject({
    username: required,
    password: required,
    otp: v.optional(v.pipe(v.string(), v.check(isTotpCodeShape, 'must be a 6-digit code'))),
  }),

  handle({ client }, request, deps, context) {
    const check = passwordCheck(request.password, { code: request.otp, deps });
    return logUserIn(
      client,
      request.username,
      request,
      check,
      deps,
      { method: 'password_grant', origin: context.origin ?? {} },
      context.dpop,
    );
  },
});

/**
 * The password check of a login (this grant, the hosted login page). With `secondFactor` (this
 * grant) a user with an authenticator must also give its current code; the hosted login page asks
 * for the code in a step of its own (login-page.ts). `amr` (RFC 8176 §2): `pwd`, and with an
 * accepted code `otp` and `mfa` (two factors; docs/passkeys.md "amr and acr").
 */
export function passwordCheck(
  password: string,
  secondFactor?: { code: string | undefined; deps: Pick<OAuthDeps, 'login' | 'now'> },
): SecretCheck {
  const amr: AuthMethod[] = ['pwd'];
  // What the check found out, for its events (login-events.ts).
  let codeRefused = false;
  return {
    amr,
    refusal: () => (codeRefused ? { reason: 'wrong_otp', secondFactor: 'otp' } : { reason: 'wrong_password' }),
    passedSecondFactor: () => (amr.includes('otp') ? 'otp' : undefined),
    // The hash starts from the marker's prefix of the user's hash; an unknown user, or one without
    // a password, is checked against the dummy hash: equal time (password-hash.ts).
    start(subject) {
      const begun = beginPasswordCheck(password, subject.marker?.passwordPrefix);
      const verify = async (user: UserRecord | undefined) => {
        const ok = await begun.verify(user?.password_hash);
        // Nothing more for a wrong password, an unknown or a blocked user: one invalid_grant for all.
        if (!ok || !user || user.blocked || !secondFactor) return ok;
        const accepted = await checkSecondFactor(user, secondFactor.code, secondFactor.deps, amr);
        codeRefused = !accepted;
        return accepted;
      };
      return { verify, settled: begun.settled };
    },
    // Parameters rose since this hash was made: store a fresh one of the password just checked.
    rehash: async (user) =>
      user.password_hash && needsRehash(user.password_hash)
        ? { oldHash: user.password_hash, newHash: await hashPassword(password) }
        : undefined,
  };
}

/**
 * The code of the user's authenticator, when it has one (enrolled or disabled: a disabled one
 * refuses every code until re-enrolled, never falling back to the password alone). The attempt
 * was counted already (user-login.ts); a refused code also counts against the authenticator.
 * An accepted code adds `otp` and `mfa` to the login's `amr`.
 */
async function checkSecondFactor(
  user: UserRecord,
  code: string | undefined,
  deps: Pick<OAuthDeps, 'login' | 'now'>,
  amr: AuthMethod[],
): Promise<boolean> {
  const authenticator = await authenticatorOf(user, deps);
  if (!authenticator) return true;
  if (code === undefined) {
    throw oauthError(400, 'invalid_grant', 'body.otp: is required: the user has an authenticator (a 6-digit TOTP code).');
  }
  const accepted = await acceptTotp(user, authenticator, code, deps);
  if (accepted) amr.push('otp', 'mfa');
  return accepted;
}
