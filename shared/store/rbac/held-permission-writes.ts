import type { HeldPermission, PermissionHolderKind } from '../../records/held-permission.ts';
import { entity } from '../core/entity.ts';
import { exists, notExists } from '../core/expression.ts';
import { keys } from '../core/table-keys.ts';
import { deleteItem, type Key, type Path, putItem, updateItem, type Write } from '../core/writes.ts';
import { copyWrites, type Holder, roleHolder, userHolder } from '../token-path/token-copies.ts';
import { resourceCounts } from './link-writes.ts';

/**
 * The writes of permissions held by a role or directly by a user (docs/contract.md §6
 * `{permissions: [{resource_id, scopes}]}`): the two kinds differ only in where their items and
 * record live, so one set of units serves both. Each permission item moves, in the same unit, the
 * scope's holder count on the resource, the holder's `aggregations.permissions` and
 * `links_version` (the lock of its `token_grants` copy), and the copy itself (token-copies.ts).
 */
const SIDES = {
  role: {
    type: 'RolePermission',
    gsi: 'ROLE',
    record: (id: string) => keys.role(id),
    item: (id: string, r: string, s: string) => keys.rolePermission(id, r, s),
  },
  user: {
    type: 'UserPermission',
    gsi: 'USER',
    record: (id: string) => keys.user(id),
    item: (id: string, r: string, s: string) => keys.userPermission(id, r, s),
  },
} as const;

/** The id of the role or user holding a permission. */
export const holderIdOf = (kind: PermissionHolderKind, p: HeldPermission): string => String(kind === 'role' ? p.role_id : p.user_id);

/** The holder's record key (`ROLE#{id}` / `ROLE`, `USER#{id}` / `USER`). */
export const holderRecordKey = (kind: PermissionHolderKind, id: string): Key => SIDES[kind].record(id);

/** A role or user record (as stored) as the holder of its copy, with whether that copy is current. */
export const heldPermissionHolder = (kind: PermissionHolderKind, record: Record<string, unknown>): Holder =>
  kind === 'role' ? roleHolder(record as unknown as Parameters<typeof roleHolder>[0]) : userHolder(record as { id: string });

/** The kind of a stored permission item of a role or user (`type`), undefined for any other item. */
export const heldPermissionKind = (type: unknown): PermissionHolderKind | undefined =>
  type === 'RolePermission' ? 'role' : type === 'UserPermission' ? 'user' : undefined;

const permissionKey = (kind: PermissionHolderKind, p: HeldPermission): Key =>
  SIDES[kind].item(holderIdOf(kind, p), p.resource_id, p.scope_id);

/** The stored item: in the holder's partition, GSI2 `SCOPE#{s}#HOLDERS` / `{ROLE|USER}#{id}` (a scope delete finds it). */
export function heldPermissionItem(kind: PermissionHolderKind, p: HeldPermission) {
  return {
    ...permissionKey(kind, p),
    GSI2PK: keys.scopeHolders(p.scope_id),
    GSI2SK: keys.scopeHolder(SIDES[kind].gsi, holderIdOf(kind, p)),
    ...entity(SIDES[kind].type),
    ...p,
  };
}

/** The holder's part: its permission count and `links_version` (what its copy is stamped against). */
const holderCounts = (kind: PermissionHolderKind, id: string, delta: number): Write => {
  const add: [Path, number][] = [
    ['links_version', 1],
    [['aggregations', 'permissions'], delta],
  ];
  return updateItem(SIDES[kind].record(id), { add, condition: exists });
};

/**
 * Grants new permissions of ONE resource (≤ 50, the body's cap): their items, the scopes' holder
 * counts (each scope must still exist), the holder's count, and its whole `token_grants` entry for
 * that resource (`scopeIds`: the ones it held as read plus the new ones).
 */
export function grantHeldPermissionsUnit(
  kind: PermissionHolderKind,
  ps: readonly HeldPermission[],
  holder: Holder,
  scopeIds: readonly string[],
): Write[] {
  const p0 = ps[0]!;
  return [
    ...ps.map((p) => putItem(heldPermissionItem(kind, p), { condition: notExists })),
    // Every scope must still exist (a scope deleted meanwhile fails the unit, and the grant re-reads).
    resourceCounts(p0.resource_id, { holders: Object.fromEntries(ps.map((p) => [p.scope_id, 1])) }, (x) =>
      ps.map((p) => `attribute_exists(${x.name(['scope_names', p.scope_id])})`).join(' AND '),
    ),
    holderCounts(kind, holder.id, ps.length),
    ...copyWrites([{ kind: 'grants-set', holder, resourceId: p0.resource_id, scopeIds }]),
  ];
}

/**
 * Revokes permissions of ONE resource: their items, the scopes' holder counts, the holder's count
 * and its `token_grants` entry for the resource (`remaining`: the scopes it keeps there; none
 * removes the entry).
 */
export function revokeHeldPermissionsUnit(
  kind: PermissionHolderKind,
  ps: readonly HeldPermission[],
  holder: Holder,
  remaining: readonly string[],
): Write[] {
  const p0 = ps[0]!;
  return [
    ...ps.map((p) => deleteItem(permissionKey(kind, p), { condition: exists })),
    resourceCounts(p0.resource_id, { holders: Object.fromEntries(ps.map((p) => [p.scope_id, -1])) }),
    holderCounts(kind, holder.id, -ps.length),
    ...copyWrites([{ kind: 'grants-set', holder, resourceId: p0.resource_id, scopeIds: remaining }]),
  ];
}

/**
 * Removes one permission found through its scope (the scope-delete cascade) with the path-level
 * copy change, which needs no read of the holder's other permissions; `holder` undefined: the
 * role or user is gone (its delete sweep), only the item and the scope's count (if the resource
 * is still there).
 */
export function revokeHeldPermissionUnit(
  kind: PermissionHolderKind,
  p: HeldPermission,
  holder: Holder | undefined,
  options: { resourceExists?: boolean } = {},
): Write[] {
  return [
    deleteItem(permissionKey(kind, p), { condition: exists }),
    ...(options.resourceExists === false ? [] : [resourceCounts(p.resource_id, { holders: { [p.scope_id]: -1 } })]),
    ...(holder
      ? [
          holderCounts(kind, holder.id, -1),
          ...copyWrites([{ kind: 'permission-removed', holder, resourceId: p.resource_id, scopeId: p.scope_id }]),
        ]
      : []),
  ];
}
