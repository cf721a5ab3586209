import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { namingPermissionsField } from '../kit/permissions-body.ts';
import { assertMayGrant } from '../no-escalation.ts';
import type { RoleDeps } from './role-deps.ts';

/**
 * POST /roles/{role_id}/permissions `{permissions: [{resource_id, scopes}]}` (docs/contract.md §6),
 * all-or-nothing: unknown resource (or another tenant's) 404; a scope that is not the resource's
 * 400; an existing permission 409. Management-API scopes need the caller to hold them (docs/contract.md §8).
 */
export async function grantRolePermissions(
  deps: RoleDeps,
  access: ManagementAccess,
  roleId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  await loadVisible(deps.roles, access.ctx, roleId, 'Role');
  await assertMayGrant(access.ctx.scopes, permissions, (id) => deps.resources.get(id));
  await namingPermissionsField(() => deps.roleLinks.grantPermissions(roleId, permissions, access.ctx.actor));
  deps.forgetRbacRecords();
}
