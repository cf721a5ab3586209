import type { RoleMember, RolePermission } from '../records/role-record.ts';
import { entity } from './entity.ts';
import { exists, notExists } from './expression.ts';
import { resourceCounts } from './link-writes.ts';
import { keys } from './table-keys.ts';
import { copyWrites, type Holder } from './token-copies.ts';
import { deleteItem, type Path, putItem, updateItem, type Write } from './writes.ts';

/**
 * The writes of role links (docs/management-roles.md). Each link item moves, in the same unit,
 * the counts at both ends (`aggregations`), the ends' `links_version` (the optimistic lock of
 * docs/data-model.md §1) and the mirrors the token path reads: the user's `role_ids` for a member,
 * the role's `token_grants` (token-copies.ts) for a permission.
 */

export function roleMemberItem(m: RoleMember) {
  return {
    ...keys.roleMember(m.role_id, m.user_id),
    GSI2PK: keys.userRoles(m.user_id),
    GSI2SK: m.role_id,
    ...entity('RoleMember'),
    ...m,
  };
}

export function rolePermissionItem(p: RolePermission) {
  return {
    ...keys.rolePermission(p.role_id, p.resource_id, p.scope_id),
    GSI2PK: keys.scopeHolders(p.scope_id),
    GSI2SK: keys.scopeHolder('ROLE', p.role_id),
    ...entity('RolePermission'),
    ...p,
  };
}

/**
 * The role item's part: its counts, and for permission changes its `links_version` (the lock the
 * `token_grants` copy is stamped against: token-copies.ts). Member changes leave `links_version`
 * alone, so they never make the copy look stale; their races are settled by the link item's own
 * condition (put if absent, delete if present).
 */
const roleCounts = (roleId: string, c: { members?: number; permissions?: number }): Write => {
  const add: [Path, number][] = [];
  if (c.members) add.push([['aggregations', 'members'], c.members]);
  if (c.permissions) add.push(['links_version', 1], [['aggregations', 'permissions'], c.permissions]);
  return updateItem(keys.role(roleId), { add, condition: exists });
};

/**
 * The user item's part of a member change: its `role_ids` entry and `aggregations.roles`.
 * Adding needs the `role_ids` map (ensured before the plan: role-links-repository.ts).
 */
const userRoleMirror = (userId: string, roleId: string, added: boolean): Write =>
  updateItem(keys.user(userId), {
    add: [[['aggregations', 'roles'], added ? 1 : -1]],
    ...(added ? { set: [[['role_ids', roleId], true]] as const } : { remove: [['role_ids', roleId]] }),
    condition: added ? (x) => `attribute_exists(${x.name('role_ids')})` : exists,
  });

export function addMemberUnit(m: RoleMember): Write[] {
  return [
    putItem(roleMemberItem(m), { condition: notExists }),
    roleCounts(m.role_id, { members: 1 }),
    userRoleMirror(m.user_id, m.role_id, true),
  ];
}

/** `userExists: false` (the user is gone, a cascade cleaning up): only the link and the role's count. */
export function removeMemberUnit(roleId: string, userId: string, options: { roleExists?: boolean; userExists?: boolean } = {}): Write[] {
  return [
    deleteItem(keys.roleMember(roleId, userId), { condition: exists }),
    ...(options.roleExists === false ? [] : [roleCounts(roleId, { members: -1 })]),
    ...(options.userExists === false ? [] : [userRoleMirror(userId, roleId, false)]),
  ];
}

/**
 * Grants the new permissions of ONE resource (≤ 50, the body's cap): their items, the scopes'
 * holder counts (each scope must still exist), the role's count, and the role's whole
 * `token_grants` entry for that resource (`scopeIds`: the ones it held as read plus the new ones).
 */
export function grantRolePermissionsUnit(ps: readonly RolePermission[], holder: Holder, scopeIds: readonly string[]): Write[] {
  const p0 = ps[0]!;
  const holders = Object.fromEntries(ps.map((p) => [p.scope_id, 1]));
  return [
    ...ps.map((p) => putItem(rolePermissionItem(p), { condition: notExists })),
    // Every scope must still exist (a scope deleted meanwhile fails the unit, and the grant re-reads).
    resourceCounts(p0.resource_id, { holders }, (x) =>
      ps.map((p) => `attribute_exists(${x.name(['scope_names', p.scope_id])})`).join(' AND '),
    ),
    roleCounts(p0.role_id, { permissions: ps.length }),
    ...copyWrites([{ kind: 'grants-set', holder, resourceId: p0.resource_id, scopeIds }]),
  ];
}

/**
 * Revokes permissions of ONE resource: their items, the scopes' holder counts, the role's count
 * and its `token_grants` entry for the resource (`remaining`: the scopes it keeps there; none
 * removes the entry).
 */
export function revokeRolePermissionsUnit(ps: readonly RolePermission[], holder: Holder, remaining: readonly string[]): Write[] {
  const p0 = ps[0]!;
  return [
    ...ps.map((p) => deleteItem(keys.rolePermission(p.role_id, p.resource_id, p.scope_id), { condition: exists })),
    resourceCounts(p0.resource_id, { holders: Object.fromEntries(ps.map((p) => [p.scope_id, -1])) }),
    roleCounts(p0.role_id, { permissions: -ps.length }),
    ...copyWrites([{ kind: 'grants-set', holder, resourceId: p0.resource_id, scopeIds: remaining }]),
  ];
}

/**
 * Removes one permission of a role found through its scope (the scope-delete cascade) with the
 * path-level copy change, which needs no read of the role's other permissions; `holder` undefined:
 * the role is gone (its delete sweep), only the item and the scope's count.
 */
export function revokeRolePermissionUnit(
  p: RolePermission,
  holder: Holder | undefined,
  options: { resourceExists?: boolean } = {},
): Write[] {
  return [
    deleteItem(keys.rolePermission(p.role_id, p.resource_id, p.scope_id), { condition: exists }),
    ...(options.resourceExists === false ? [] : [resourceCounts(p.resource_id, { holders: { [p.scope_id]: -1 } })]),
    ...(holder
      ? [
          roleCounts(p.role_id, { permissions: -1 }),
          ...copyWrites([{ kind: 'permission-removed', holder, resourceId: p.resource_id, scopeId: p.scope_id }]),
        ]
      : []),
  ];
}
