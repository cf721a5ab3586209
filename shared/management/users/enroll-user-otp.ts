import { base32Decode, otpauthUri } from '../../users/totp.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { UserDeps } from './user-deps.ts';
import { loadSelfOrManaged } from './user-rules.ts';

export interface OtpEnrolment {
  /** RFC 4648 base32, shown this once. */
  secret: string;
  otpauth_uri: string;
}

/**
 * POST /users/{user_id}/otp: 201 `{secret, otpauth_uri}` (API.md §7.5), with `update:users` or as
 * the user itself. A new enrolment replaces the previous authenticator (and clears a disabled one,
 * NIST SP 800-63B §5.2.2). The secret is stored sealed (shared/store/otp-repository.ts) and never
 * shown again; the response is `no-store`.
 */
export async function enrollUserOtp(deps: UserDeps, access: ManagementAccess, userId: string): Promise<OtpEnrolment> {
  const { user } = await loadSelfOrManaged(deps, access, userId);
  const secret = await deps.otp.enroll(user.id);
  const account = user.email ?? user.username ?? user.phone_number ?? user.id;
  return { secret, otpauth_uri: otpauthUri(base32Decode(secret)!, { issuer: deps.issuer, account }) };
}
