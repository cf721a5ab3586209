import type { GroupRecord } from '../../records/group-record.ts';
import type { RoleRecord } from '../../records/role-record.ts';
import { assertMayPassOn } from '../roles/role-rules.ts';
import type { GroupDeps } from './group-deps.ts';

/**
 * docs/contract.md §8 "No escalation" for the links that make a group's roles reach more users: a member
 * link (from either end) gives the user the roles of the group AND of every ancestor of it;
 * nesting a child under a parent gives every member of the child's subtree the roles of the
 * parent and of its ancestors. So adding such a link needs the caller to hold every
 * management-API scope of those roles (403 `insufficient_scope` naming one), checked on the
 * records before anything is written. Groups or roles that are gone meanwhile pass nothing on.
 *
 * `groups`: the groups whose roles are passed on (the group joined, or the new parent); their
 * ancestors are added here.
 */
export async function assertMayPassOnGroupRoles(
  deps: Pick<GroupDeps, 'groups' | 'roles' | 'resources'>,
  held: ReadonlySet<string>,
  groups: readonly GroupRecord[],
): Promise<void> {
  const known = new Map(groups.map((g) => [g.id, g]));
  const ancestorIds = [...new Set(groups.flatMap((g) => Object.keys(g.ancestor_ids ?? {})))].filter((id) => !known.has(id));
  const ancestors = await Promise.all(ancestorIds.map((id) => deps.groups.get(id)));
  const all = [...groups, ...ancestors.filter((g): g is GroupRecord => g !== undefined)];
  const roleIds = [...new Set(all.flatMap((g) => Object.keys(g.role_ids ?? {})))];
  const roles = (await Promise.all(roleIds.map((id) => deps.roles.get(id)))).filter((r): r is RoleRecord => r !== undefined);
  await assertMayPassOn(deps, held, roles);
}
