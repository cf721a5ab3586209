import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';
import { assertMayPassOn } from './role-rules.ts';

/**
 * POST /roles/{role_id}/members `{users: [id]}` (docs/contract.md §6): all-or-nothing; a user unknown or of
 * another tenant 404, one already a member 409. The link passes the role's permissions on, so the
 * caller must hold the role's management-API scopes (docs/contract.md §8).
 */
export async function addRoleMembers(deps: RoleDeps, access: ManagementAccess, roleId: string, userIds: readonly string[]): Promise<void> {
  const role = await loadVisible(deps.roles, access.ctx, roleId, 'Role');
  await assertMayPassOn(deps, access.ctx.scopes, [role]);
  await deps.roleLinks.addMembers(roleId, userIds, access.ctx.actor);
}
