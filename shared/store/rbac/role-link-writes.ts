import type { RoleMember } from '../../records/role-record.ts';
import { entity } from '../core/entity.ts';
import { exists, notExists } from '../core/expression.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, putItem, updateItem, type Write } from '../core/writes.ts';

/**
 * The writes of role member links (docs/management-roles.md): each link item moves, in the same
 * unit, the counts at both ends (`aggregations`) and the user's `role_ids` mirror the token path
 * reads. Role permissions: held-permission-writes.ts (shared with users' direct permissions).
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

/**
 * The role item's part of a member change: its count only. Member changes leave `links_version`
 * (the stamp of the `token_grants` copy) alone, so they never make the copy look stale; their races
 * are settled by the link item's own condition (put if absent, delete if present).
 */
const roleMemberCount = (roleId: string, delta: number): Write =>
  updateItem(keys.role(roleId), { add: [[['aggregations', 'members'], delta]], condition: exists });

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
  return [putItem(roleMemberItem(m), { condition: notExists }), roleMemberCount(m.role_id, 1), userRoleMirror(m.user_id, m.role_id, true)];
}

/** `userExists: false` (the user is gone, a cascade cleaning up): only the link and the role's count. */
export function removeMemberUnit(roleId: string, userId: string, options: { roleExists?: boolean; userExists?: boolean } = {}): Write[] {
  return [
    deleteItem(keys.roleMember(roleId, userId), { condition: exists }),
    ...(options.roleExists === false ? [] : [roleMemberCount(roleId, -1)]),
    ...(options.userExists === false ? [] : [userRoleMirror(userId, roleId, false)]),
  ];
}
