import { notFound } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { UserDeps } from './user-deps.ts';
import { loadSelfOrManaged } from './user-rules.ts';

/** DELETE /users/{user_id}/otp: 204 (API.md §7.5), with `update:users` or as the user; 404 when none is enrolled. */
export async function removeUserOtp(deps: UserDeps, access: ManagementAccess, userId: string): Promise<void> {
  const { user } = await loadSelfOrManaged(deps, access, userId);
  if (!(await deps.otp.remove(user.id))) throw notFound('The user has no OTP authenticator.');
}
