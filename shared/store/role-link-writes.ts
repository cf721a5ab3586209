import type { RoleMember, RolePermission } from '../records/role-record.ts';
import { entity } from './entity.ts';
import { and, type Condition, exists, notExists } from './expression.ts';
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

/** The role item's part: its counts and `links_version`; the copy writes come separately. */
const roleCounts = (roleId: string, c: { members?: number; permissions?: number }): Write => {
  const add: [Path, number][] = [['links_version', 1]];
  if (c.members) add.push([['aggregations', 'members'], c.members]);
  if (c.permissions) add.push([['aggregations', 'permissions'], c.permissions]);
  return updateItem(keys.role(roleId), { add, condition: exists });
};

/**
 * The user item's part of a member change: `role_ids` entry, `aggregations.roles`, `links_version`.
 * Adding needs the `role_ids` map (ensured before the plan: roles-repository.ts `ensureRoleIds`).
 */
const userRoleMirror = (userId: string, roleId: string, added: boolean): Write =>
  updateItem(keys.user(userId), {
    add: [
      ['links_version', 1],
      [['aggregations', 'roles'], added ? 1 : -1],
    ],
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
    resourceCounts(
      p0.resource_id,
      { holders },
      and(
        ...ps.map(
          (p): Condition =>
            (x) =>
              `attribute_exists(${x.name(['scope_names', p.scope_id])})`,
        ),
      ),
    ),
    roleCounts(p0.role_id, { permissions: ps.length }),
    ...copyWrites([{ kind: 'grants-set', holder, resourceId: p0.resource_id, scopeIds }]),
  ];
}

/** `holder` undefined: the role is gone (a delete cascade), only the item and the scope's count. */
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
