import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { GroupDeps } from './group-deps.ts';
import { nestedGroupEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';
import { assertMayPassOnGroupRoles } from './group-rules.ts';

/**
 * Nested groups (docs/contract.md §6 `/groups/{group_id}/groups`, §7.6). Changes are all-or-nothing and
 * serialised per tenant by the graph version (store/group-nesting.ts): a cycle, a chain deeper
 * than 10, an unknown or another tenant's group or an existing link change nothing.
 *
 * No escalation (docs/contract.md §8): nesting gives nobody the child's roles who lacked them (the parent's
 * members do not gain the child's roles), but it gives every member of the child's subtree the
 * roles of the PARENT and of its ancestors. So the caller must hold each management-API scope of
 * those roles (group-rules.ts), checked before anything is written, whether or not the child's
 * subtree has members yet (simpler, and never weaker).
 */
export async function addNestedGroups(deps: GroupDeps, access: ManagementAccess, groupId: string, childIds: readonly string[]) {
  const parent = await loadVisible(deps.groups, access.ctx, groupId, 'Group');
  await assertMayPassOnGroupRoles(deps, access.ctx.scopes, [parent]);
  await deps.links.addChildren(groupId, childIds, access.ctx.actor);
  deps.forgetRbacRecords();
}

export const removeNestedGroups = (deps: GroupDeps, access: ManagementAccess, groupId: string, childIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.removeChildren(groupId, childIds));

/** GET /groups/{group_id}/groups: the direct children's links, `group_data` under `expand=all`. */
export const listNestedGroups = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(nestedGroupEntity, deps, access, groupId, 'groups', (links) => links.listChildren(groupId), params);
