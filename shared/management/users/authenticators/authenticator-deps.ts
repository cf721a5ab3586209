import type { OtpStatusRead } from '../../../store/users/otp-status.ts';
import type { PasskeysRepository } from '../../../store/users/passkeys-repository.ts';
import type { UserDeps } from '../user-deps.ts';

/** What the authenticators use cases depend on, passed as an argument (docs/design.md §3.2); built in shared/wiring/users.ts. */
export interface AuthenticatorDeps extends Pick<UserDeps, 'users' | 'managementScopesOf' | 'verifyPassword' | 'loginFailures' | 'otp'> {
  /** The TOTP authenticator without its secret (shared/store/users/otp-status.ts). */
  readonly otpStatus: OtpStatusRead;
  /** The user's passkeys (shared/store/users/passkeys-repository.ts). */
  readonly passkeys: Pick<PasskeysRepository, 'list' | 'remove'>;
}
