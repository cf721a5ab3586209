import { base32Decode, otpauthUri } from '../../crypto/totp.ts';
import { badRequest, forbidden } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { assertCurrentPassword } from './self-password.ts';
import type { OtpBodyInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { loadSelfOrManaged } from './user-rules.ts';

export interface OtpEnrolment {
  /** RFC 4648 base32, shown this once. */
  secret: string;
  otpauth_uri: string;
}

/**
 * POST /users/{user_id}/otp: 201 `{secret, otpauth_uri}` (docs/management-users.md), for the user itself only,
 * with its current password in `body.password` (self-password.ts). The management API shows a TOTP
 * secret to nobody but its user: whoever knows it holds a credential of its own for as long as the
 * authenticator lives, so an administrator enrolling for a user would keep one (403; the
 * administrator sends an enrolment ticket instead, POST /tickets/otp-enrollment). A user without a
 * password sets one first (a password-change ticket). A new enrolment replaces the previous
 * authenticator (one per user; it also clears a disabled one, NIST SP 800-63B §5.2.2). The secret
 * is stored sealed (shared/store/users/otp-repository.ts) and never shown again; the response is `no-store`.
 */
export async function enrollUserOtp(deps: UserDeps, access: ManagementAccess, userId: string, body: OtpBodyInput): Promise<OtpEnrolment> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (!self) {
    throw forbidden(
      'Only the user itself enrols an authenticator: the secret is shown to nobody else. Send it an enrolment ticket (POST /identity/v1/tickets/otp-enrollment).',
    );
  }
  if (user.password_hash === undefined) {
    throw badRequest('body.password: the user has no password; it sets one first (a password-change ticket), then enrols.');
  }
  await assertCurrentPassword(deps, user, body.password, 'body.password', 'enrols its own authenticator');
  const secret = await deps.otp.enroll(user.id, { enrolledBy: user.id });
  const account = user.email ?? user.username ?? user.phone_number ?? user.id;
  return { secret, otpauth_uri: otpauthUri(base32Decode(secret)!, { issuer: deps.issuer, account }) };
}
