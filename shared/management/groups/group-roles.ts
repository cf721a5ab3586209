import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupRoleEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';

/**
 * Group roles (API.md §6 `/groups/{group_id}/roles`): members, also of nested groups, inherit
 * them at token time. One transaction per call whatever the group's size (store/group-roles.ts).
 * All-or-nothing: an unknown or another tenant's role is 404, an existing link 409, a missing one
 * 404, and nothing changes.
 *
 * No escalation (API.md §8): a group role passes the role's management-API scopes on to every
 * member. NOT enforced yet: see docs/management-groups.md.
 */
export const addGroupRoles = (deps: GroupDeps, access: ManagementAccess, groupId: string, roleIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.addRoles(groupId, roleIds, access.ctx.actor));

export const removeGroupRoles = (deps: GroupDeps, access: ManagementAccess, groupId: string, roleIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.removeRoles(groupId, roleIds));

/** GET /groups/{group_id}/roles: the group's direct role links, `role_data` under `expand=all`. */
export const listGroupRoles = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(groupRoleEntity, deps, access, groupId, 'roles', (links) => links.listRoles(groupId), params);
