import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { isTotpCodeShape, matchTotpStep } from '../../crypto/totp.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { OtpAuthenticator } from '../../store/users/otp-checks.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import { defineGrant } from './token-grant.ts';
import { logUserIn, type SecretCheck } from './user-login.ts';

/**
 * `otp` (docs/contract.md §5.1, §7.3): `username` (username, email or phone number) + `otp`, a TOTP code
 * (RFC 6238) of the authenticator the user enrolled. The code of a time step is accepted once:
 * the step is recorded by one conditional write (`last_step < step`), so a replayed code, or the
 * same code sent in parallel, gets in at most once (RFC 6238 §5.2). Every refused code counts
 * against the authenticator, which is disabled after OTP_MAX_FAILURES consecutive ones until
 * re-enrolled (NIST SP 800-63B §5.2.2), and against the user's lockout (user-login.ts).
 */
export const otp = defineGrant({
  name: 'otp',
  params: v.looseObject({
    username: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(1024)),
    otp: v.pipe(v.string(), v.check(isTotpCodeShape, 'must be a 6-digit code')),
  }),

  handle({ client }, request, deps, context) {
    const events = { method: 'otp_grant', origin: context.origin ?? {} } as const;
    return logUserIn(client, request.username, request, totpCheck(request.otp, deps), deps, events, context.dpop);
  },
});

/**
 * The TOTP check of a login (this grant, the hosted login page's OTP step): the code of a step is
 * accepted once (one conditional write), every refused code counts against the authenticator.
 * `amr` `otp` alone: one factor, the device that holds the secret (RFC 8176 §2; docs/passkeys.md
 * "amr and acr").
 */
export function totpCheck(code: string, deps: Pick<OAuthDeps, 'login' | 'now'>): SecretCheck {
  // Nothing to start before the user is read: the authenticator is read by the user's id.
  const verify = async (user: UserRecord | undefined): Promise<boolean> => {
    // An unknown user reads an authenticator that does not exist: the same read either way.
    const authenticator = await deps.login.otp.find(user?.id ?? randomUUID());
    return user !== undefined && authenticator !== undefined && acceptTotp(user, authenticator, code, deps);
  };
  return { amr: ['otp'], refusal: () => ({ reason: 'wrong_otp' }), start: () => ({ verify, settled: Promise.resolve() }) };
}

/**
 * Whether `code` is the authenticator's code of the current step (one step of drift either way,
 * docs/contract.md §7.3), accepted once by one conditional write; a refused code counts against the
 * authenticator. A disabled authenticator accepts nothing.
 */
export async function acceptTotp(
  user: UserRecord,
  authenticator: OtpAuthenticator,
  code: string,
  deps: Pick<OAuthDeps, 'login' | 'now'>,
): Promise<boolean> {
  if (authenticator.disabled) return false;
  const step = matchTotpStep(authenticator.secret, code, deps.now());
  // A blocked user's code is not consumed (nor counted): the answer is invalid_grant anyway.
  if (user.blocked) return false;
  const accepted =
    step !== undefined && step > authenticator.lastStep && (await deps.login.otp.accept(user.id, authenticator.sealed, step));
  if (!accepted) await deps.login.otp.recordFailure(user.id, authenticator.sealed);
  return accepted;
}

/**
 * The user's authenticator, enrolled or disabled: read only when the user item does not say there
 * is none (`otp_enrolled`, written with the authenticator; absent on older users: read).
 */
export function authenticatorOf(user: UserRecord, deps: Pick<OAuthDeps, 'login'>): Promise<OtpAuthenticator | undefined> {
  return user.otp_enrolled === false ? Promise.resolve(undefined) : deps.login.otp.find(user.id);
}
