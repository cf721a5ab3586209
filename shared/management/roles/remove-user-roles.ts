import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';

/** DELETE /users/{user_id}/roles `{roles: [id]}` (docs/contract.md §6): all-or-nothing; a role the user lacks 404. */
export async function removeUserRoles(deps: RoleDeps, access: ManagementAccess, userId: string, roleIds: readonly string[]): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  await deps.roleLinks.removeRolesFromUser(userId, roleIds);
}
