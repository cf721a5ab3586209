import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { namingPermissionsField } from '../kit/permissions-body.ts';
import { assertMayGrant } from '../no-escalation.ts';
import type { UserPermissionDeps } from './user-permission-deps.ts';

/**
 * POST /users/{user_id}/permissions `{permissions: [{resource_id, scopes}]}` (docs/contract.md §6): the
 * user's DIRECT permissions, with the rules of role permissions. All-or-nothing: an unknown user
 * or resource (or another tenant's) 404; a scope that is not the resource's 400; an existing
 * permission 409. Management-API scopes need the caller to hold each one (docs/contract.md §8: 403
 * `insufficient_scope`, nothing written).
 */
export async function grantUserPermissions(
  deps: UserPermissionDeps,
  access: ManagementAccess,
  userId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  await assertMayGrant(access.ctx.scopes, permissions, (id) => deps.resources.get(id));
  try {
    await namingPermissionsField(() => deps.permissions.grant(userId, permissions, access.ctx.actor));
  } finally {
    deps.forgetUser(userId);
  }
}
