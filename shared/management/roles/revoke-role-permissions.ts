import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';

/** DELETE /roles/{role_id}/permissions (docs/contract.md §6), all-or-nothing: a permission the role lacks is 404. */
export async function revokeRolePermissions(
  deps: RoleDeps,
  access: ManagementAccess,
  roleId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  await loadVisible(deps.roles, access.ctx, roleId, 'Role');
  await deps.roleLinks.revokePermissions(roleId, permissions);
  deps.forgetRbacRecords();
}
