import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { effectiveGroups } from '../../rbac/effective-permissions.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { RbacDeps } from './rbac-deps.ts';
import { type EffectiveGroupItem, userGroupEntity } from './rbac-entities.ts';

/**
 * GET /users/{user_id}/groups (docs/contract.md §6, §7.6): the user's direct groups and the groups they are
 * nested in (their `ancestor_ids`), each once, `direct: true` for a direct group even when it is
 * inherited too. Reads: the user, then at most two BatchGetItem (direct groups, then ancestors).
 */
export async function listUserGroups(deps: RbacDeps, access: ManagementAccess, userId: string, params: ListParams): Promise<ListEnvelope> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  const groups = await effectiveGroups(user, deps.rbac);
  const items: EffectiveGroupItem[] = groups.map(({ group, direct }) => ({
    id: group.id,
    tenant_id: group.tenant_id,
    user_id: user.id,
    group_id: group.id,
    direct,
  }));
  return listRecords(userGroupEntity, deps, access, arraySource(`users/${userId}/groups`, items), params, await deps.cursorKey());
}
