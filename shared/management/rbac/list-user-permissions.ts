import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { effectiveAccess } from '../../rbac/effective-permissions.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { RbacDeps } from './rbac-deps.ts';
import { type EffectivePermissionItem, userPermissionEntity } from './rbac-entities.ts';

/**
 * GET /users/{user_id}/permissions (docs/contract.md §6, §7.6): the user's effective permissions, one item
 * per (resource, scope), each with its `sources` (`direct`; `role` + the role id; `group` + the id
 * of the group holding the role, the user's own group or one of its ancestors). Reads: the user,
 * then at most three BatchGetItem (shared/rbac/effective-permissions.ts), consistently.
 */
export async function listUserPermissions(
  deps: RbacDeps,
  access: ManagementAccess,
  userId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  const { permissions } = await effectiveAccess(user, deps.rbac);
  const items: EffectivePermissionItem[] = [...permissions].flatMap(([resource_id, scopes]) =>
    [...scopes].map(([scope_id, sources]) => ({
      id: scope_id,
      tenant_id: user.tenant_id,
      user_id: user.id,
      resource_id,
      scope_id,
      sources,
    })),
  );
  const source = arraySource(`users/${userId}/permissions`, items);
  return listRecords(userPermissionEntity, deps, access, source, params, await deps.cursorKey());
}
