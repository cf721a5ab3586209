import { notFound } from '../../errors.ts';
import { isVisible, type ManagementAccess } from '../kit/access.ts';
import type { UserDeps } from './user-deps.ts';

/**
 * DELETE /users/{user_id}: 204 (docs/contract.md §6). The user (its login-failure count with it), its
 * markers and OTP authenticator go in one transaction, then its refresh tokens in pages
 * (shared/store/users/user-delete.ts). Another tenant's user: 404 and nothing is touched. A repeat of an
 * interrupted delete is a 404 that still finishes removing the refresh tokens.
 */
export async function deleteUser(deps: UserDeps, access: ManagementAccess, userId: string): Promise<void> {
  const deleted = await deps.users.delete(userId, (user) => isVisible(access.ctx, user));
  deps.forget(userId);
  if (!deleted) throw notFound('User not found.');
}
