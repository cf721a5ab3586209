import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';
import { nestedGroupEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';

/**
 * Nested groups (API.md §6 `/groups/{group_id}/groups`, §7.6). Changes are all-or-nothing and
 * serialised per tenant by the graph version (store/group-nesting.ts): a cycle, a chain deeper
 * than 10, an unknown or another tenant's group or an existing link change nothing.
 *
 * No escalation (API.md §8): nesting passes the child's roles' management scopes on to nobody new
 * (members of the child already hold them; the parent's members do not gain the child's roles),
 * but it does pass the PARENT's roles on to the child's members. That check needs roles with
 * permissions (branch `roles`) and is not enforced yet (docs/management-groups.md).
 */
export const addNestedGroups = (deps: GroupDeps, access: ManagementAccess, groupId: string, childIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.addChildren(groupId, childIds, access.ctx.actor));

export const removeNestedGroups = (deps: GroupDeps, access: ManagementAccess, groupId: string, childIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.removeChildren(groupId, childIds));

/** GET /groups/{group_id}/groups: the direct children's links, `group_data` under `expand=all`. */
export const listNestedGroups = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(nestedGroupEntity, deps, access, groupId, 'groups', (links) => links.listChildren(groupId), params);
