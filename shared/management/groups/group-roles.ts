import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { RoleRecord } from '../../records/role-record.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { assertMayPassOn } from '../roles/role-rules.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupRoleEntity } from './group-entity.ts';
import { changeGroupLinks, listGroupLinks } from './group-links.ts';

/**
 * Group roles (docs/contract.md §6 `/groups/{group_id}/roles`): members, also of nested groups, inherit
 * them at token time. One transaction per call whatever the group's size (store/group-roles.ts).
 * All-or-nothing: an unknown or another tenant's role is 404, an existing link 409, a missing one
 * 404, and nothing changes.
 *
 * No escalation (docs/contract.md §8): a group role passes the role's management-API scopes on to every
 * member, so the caller must hold each of them (403 `insufficient_scope`), checked before anything
 * is written. Roles that do not exist, or are not visible, are left to the store's 404.
 */
export async function addGroupRoles(deps: GroupDeps, access: ManagementAccess, groupId: string, roleIds: readonly string[]) {
  const found = await Promise.all([...new Set(roleIds)].map((id) => deps.roles.get(id)));
  // Another tenant's role is the store's 404 for a non-global caller, never a 403 that would tell it exists.
  const visible = found.filter((r): r is RoleRecord => r !== undefined && (access.ctx.isGlobal || r.tenant_id === access.ctx.tenantId));
  await assertMayPassOn(deps, access.ctx.scopes, visible);
  return changeGroupLinks(deps, access, groupId, (links) => links.addRoles(groupId, roleIds, access.ctx.actor));
}

export const removeGroupRoles = (deps: GroupDeps, access: ManagementAccess, groupId: string, roleIds: readonly string[]) =>
  changeGroupLinks(deps, access, groupId, (links) => links.removeRoles(groupId, roleIds));

/** GET /groups/{group_id}/roles: the group's direct role links, `role_data` under `expand=all`. */
export const listGroupRoles = (deps: GroupDeps, access: ManagementAccess, groupId: string, params: ListParams): Promise<ListEnvelope> =>
  listGroupLinks(groupRoleEntity, deps, access, groupId, 'roles', (links) => links.listRoles(groupId), params);
