import { notFound } from '../../errors.ts';
import { isVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';

/**
 * DELETE /roles/{role_id}: 204 (docs/contract.md §6). The role and its name marker go in one transaction
 * (from then on it grants nothing), then its member and permission links in bounded pages
 * (store/role-delete.ts). Another tenant's role: 404, nothing touched. A repeat of an interrupted
 * delete is a 404 that still finishes the links.
 */
export async function deleteRole(deps: RoleDeps, access: ManagementAccess, roleId: string): Promise<void> {
  const deleted = await deps.roles.delete(roleId, (role) => isVisible(access.ctx, role));
  deps.forgetRbacRecords();
  if (!deleted) throw notFound('Role not found.');
}
