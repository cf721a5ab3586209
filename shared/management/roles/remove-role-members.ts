import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';

/** DELETE /roles/{role_id}/members `{users: [id]}` (docs/contract.md §6): all-or-nothing; a user not a member 404. */
export async function removeRoleMembers(
  deps: RoleDeps,
  access: ManagementAccess,
  roleId: string,
  userIds: readonly string[],
): Promise<void> {
  await loadVisible(deps.roles, access.ctx, roleId, 'Role');
  await deps.roleLinks.removeMembers(roleId, userIds);
}
