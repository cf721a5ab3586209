import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { GroupRecord } from '../../records/group-record.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupMemberEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';
import { assertMayPassOnGroupRoles } from './group-rules.ts';

/**
 * Group members (docs/contract.md §6 `/groups/{group_id}/members`, `/users/{user_id}/groups`): one link
 * item seen from both ends (store/group-links-repository.ts). All-or-nothing: an unknown or
 * another tenant's id is 404, an existing link 409, a missing one 404, and nothing changes.
 *
 * No escalation (docs/contract.md §8): a membership passes on the management-API scopes of the roles of
 * the group and of its ancestors, so the caller must hold each (group-rules.ts), checked before
 * anything is written.
 */
export async function addGroupMembers(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  userIds: readonly string[],
): Promise<void> {
  const group = await loadVisible(deps.groups, access.ctx, groupId, 'Group');
  await assertMayPassOnGroupRoles(deps, access.ctx.scopes, [group]);
  await deps.links.addMembers(groupId, userIds, access.ctx.actor);
  for (const u of userIds) deps.forgetUser(u);
}

export async function removeGroupMembers(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  userIds: readonly string[],
): Promise<void> {
  await changeGroupLinks(deps, access, groupId, (links) => links.removeMembers(groupId, userIds));
  for (const u of userIds) deps.forgetUser(u);
}

/**
 * POST/DELETE /users/{user_id}/groups: the same links from the user's side (404 unless the caller
 * sees the user); adding checks the roles passed on as addGroupMembers does.
 */
export async function changeUserGroups(
  deps: GroupDeps,
  access: ManagementAccess,
  userId: string,
  groupIds: readonly string[],
  kind: 'add' | 'remove',
): Promise<void> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  if (kind === 'add') {
    // The groups of the user's tenant passed on (an unknown or another tenant's one is the store's 404).
    const groups = (await Promise.all([...new Set(groupIds)].map((id) => deps.groups.get(id)))).filter(
      (g): g is GroupRecord => g !== undefined && g.tenant_id === user.tenant_id,
    );
    await assertMayPassOnGroupRoles(deps, access.ctx.scopes, groups);
    await deps.links.addUserGroups(userId, groupIds, access.ctx.actor);
  } else await deps.links.removeUserGroups(userId, groupIds);
  deps.forgetUser(userId);
}

export const addUserGroups = (deps: GroupDeps, access: ManagementAccess, userId: string, groupIds: readonly string[]) =>
  changeUserGroups(deps, access, userId, groupIds, 'add');
export const removeUserGroups = (deps: GroupDeps, access: ManagementAccess, userId: string, groupIds: readonly string[]) =>
  changeUserGroups(deps, access, userId, groupIds, 'remove');

/** GET /groups/{group_id}/members: member links, `user_data` under `expand=all`. */
export const listGroupMembers = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(groupMemberEntity, deps, access, groupId, 'members', (links) => links.listMembers(groupId), params);
