import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupMemberEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';

/**
 * Group members (API.md §6 `/groups/{group_id}/members`, `/users/{user_id}/groups`): one link
 * item seen from both ends (store/group-links-repository.ts). All-or-nothing: an unknown or
 * another tenant's id is 404, an existing link 409, a missing one 404, and nothing changes.
 *
 * No escalation (API.md §8): a membership passes the group's roles' management scopes on. Roles
 * carry no permissions on this branch yet, so the check (`assertHolds` over the scopes of the
 * group's and its ancestors' roles on the management API) is not enforced yet
 * (docs/management-groups.md).
 */
export async function addGroupMembers(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  userIds: readonly string[],
): Promise<void> {
  await changeGroupLinks(deps, access, groupId, (links) => links.addMembers(groupId, userIds, access.ctx.actor));
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

/** POST/DELETE /users/{user_id}/groups: the same links from the user's side (404 unless the caller sees the user). */
export async function changeUserGroups(
  deps: GroupDeps,
  access: ManagementAccess,
  userId: string,
  groupIds: readonly string[],
  kind: 'add' | 'remove',
): Promise<void> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  if (kind === 'add') await deps.links.addUserGroups(userId, groupIds, access.ctx.actor);
  else await deps.links.removeUserGroups(userId, groupIds);
  deps.forgetUser(userId);
}

export const addUserGroups = (deps: GroupDeps, access: ManagementAccess, userId: string, groupIds: readonly string[]) =>
  changeUserGroups(deps, access, userId, groupIds, 'add');
export const removeUserGroups = (deps: GroupDeps, access: ManagementAccess, userId: string, groupIds: readonly string[]) =>
  changeUserGroups(deps, access, userId, groupIds, 'remove');

/** GET /groups/{group_id}/members: member links, `user_data` under `expand=all`. */
export const listGroupMembers = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(groupMemberEntity, deps, access, groupId, 'members', (links) => links.listMembers(groupId), params);
