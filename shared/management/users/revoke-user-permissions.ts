import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { UserPermissionDeps } from './user-permission-deps.ts';

/** DELETE /users/{user_id}/permissions (docs/contract.md §6), all-or-nothing: a permission the user lacks directly is 404. */
export async function revokeUserPermissions(
  deps: UserPermissionDeps,
  access: ManagementAccess,
  userId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  try {
    await deps.permissions.revoke(userId, permissions);
  } finally {
    deps.forgetUser(userId);
  }
}
