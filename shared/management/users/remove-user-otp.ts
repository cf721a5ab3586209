import { notFound } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { assertCurrentPassword } from './self-password.ts';
import type { OtpBodyInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { loadSelfOrManaged } from './user-rules.ts';

/**
 * DELETE /users/{user_id}/otp: 204 (docs/management-users.md); 404 when none is enrolled. With `update:users`
 * (and the scopes the user holds: no takeover), or as the user itself with its current password in
 * `body.password` (self-password.ts): a stolen token alone cannot take the second factor away.
 */
export async function removeUserOtp(deps: UserDeps, access: ManagementAccess, userId: string, body: OtpBodyInput): Promise<void> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (self) await assertCurrentPassword(deps, user, body.password, 'body.password', 'removes its own authenticator');
  if (!(await deps.otp.remove(user.id))) throw notFound('The user has no OTP authenticator.');
}
