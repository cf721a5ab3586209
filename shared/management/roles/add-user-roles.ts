import type { RoleRecord } from '../../records/role-record.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { RoleDeps } from './role-deps.ts';
import { assertMayPassOn } from './role-rules.ts';

/**
 * POST /users/{user_id}/roles `{roles: [id]}` (docs/contract.md §6): the member links of addRoleMembers
 * seen from the user. A role unknown or of another tenant 404 (the store's check, after the
 * escalation check: an unknown role passes nothing on), one already held 409; the caller must
 * hold the management-API scopes of every role named (docs/contract.md §8).
 */
export async function addUserRoles(deps: RoleDeps, access: ManagementAccess, userId: string, roleIds: readonly string[]): Promise<void> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  const roles = (await Promise.all([...new Set(roleIds)].map((id) => deps.roles.get(id)))).filter(
    (r): r is RoleRecord => r !== undefined && r.tenant_id === user.tenant_id,
  );
  await assertMayPassOn(deps, access.ctx.scopes, roles);
  await deps.roleLinks.addRolesToUser(userId, roleIds, access.ctx.actor);
}
