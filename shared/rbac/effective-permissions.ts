import type { TokenGrants } from '../records/client-record.ts';
import type { IdSet } from '../records/group-record.ts';

/**
 * Effective permissions of a user (docs/contract.md §7.1, §7.6; docs/rbac.md), computed from the small
 * copies the link changes keep, never materialised per user:
 *
 *   the user's own `token_grants` (direct permissions)
 *   ∪ the `token_grants` of each role in `user.role_ids`
 *   ∪ the `token_grants` of each role of each group in `user.group_ids` and of their `ancestor_ids`.
 *
 * Reads, after the user (which the caller already has): at most THREE batches of records, each
 * one BatchGetItem when nothing is cached (`RbacRecordReads`), whatever the depth of nesting:
 * 1. the direct roles and the direct groups;
 * 2. the ancestors of the direct groups and the roles of the direct groups;
 * 3. the roles of the ancestors.
 * A batch whose records are all cached reads nothing, so a warm container reads none.
 *
 * A role or group of another tenant than the user's, or one that no longer exists, grants nothing
 * (ids are global UUIDs and links are checked per tenant, so only a forged or stale mirror could
 * name one; it is ignored, not trusted).
 */

/** What the resolver needs of a user: its tenant and the three mirrors (absent on users made before RBAC). */
export interface RbacUser {
  id: string;
  tenant_id: string;
  /** Direct permissions: resource id → { scope id: true } (holder kind `user`). */
  token_grants?: TokenGrants | undefined;
  role_ids?: IdSet | undefined;
  group_ids?: IdSet | undefined;
}

export interface RbacRole {
  id: string;
  tenant_id: string;
  token_grants?: TokenGrants | undefined;
}

export interface RbacGroup {
  id: string;
  tenant_id: string;
  role_ids?: IdSet | undefined;
  ancestor_ids?: IdSet | undefined;
}

/** Found records by id (an id missing from the map: no such record). */
export interface RbacRecords {
  roles: ReadonlyMap<string, RbacRole>;
  groups: ReadonlyMap<string, RbacGroup>;
}

/**
 * The store's port: the role and group records with these ids, in ONE read of whatever it does
 * not hold fresh (store/rbac-records.ts: a consistent BatchGetItem, through 1 s record caches on
 * the token path).
 */
export interface RbacRecordReads {
  read(ids: { roles: readonly string[]; groups: readonly string[] }): Promise<RbacRecords>;
}

/** Where a permission comes from (docs/contract.md §7.6 `sources`). */
export type PermissionSource = { type: 'direct' } | { type: 'role'; id: string } | { type: 'group'; id: string };

/** A group the user is in, directly or through nesting (docs/contract.md §7.6 `/users/{id}/groups`). */
export interface EffectiveGroup {
  group: RbacGroup;
  /** A direct member (also when it is inherited as well). */
  direct: boolean;
}

export interface EffectiveAccess {
  /** Resource id → scope id → its sources (direct first, then roles, then groups; each by id). */
  permissions: ReadonlyMap<string, ReadonlyMap<string, readonly PermissionSource[]>>;
  /** Every group the user is in, direct ones first, then inherited, each once, each part in id order. */
  groups: readonly EffectiveGroup[];
}

const ids = (set: IdSet | undefined): string[] => (set ? Object.keys(set) : []);

/**
 * The groups the user is in, directly and through nesting: batches 1 and 2 (groups only), for
 * `GET /users/{id}/groups`.
 */
export async function effectiveGroups(user: RbacUser, reads: RbacRecordReads): Promise<readonly EffectiveGroup[]> {
  return (await resolve(user, reads, false)).groups;
}

/** Effective permissions with their sources, and the groups they came through (three batches at most). */
export async function effectiveAccess(user: RbacUser, reads: RbacRecordReads): Promise<EffectiveAccess> {
  return resolve(user, reads, true);
}

/** The scope ids of `resourceId` the user effectively holds (the token path). */
export async function heldScopeIds(user: RbacUser, resourceId: string, reads: RbacRecordReads): Promise<ReadonlySet<string>> {
  const { permissions } = await effectiveAccess(user, reads);
  return new Set(permissions.get(resourceId)?.keys() ?? []);
}

async function resolve(user: RbacUser, reads: RbacRecordReads, withRoles: boolean): Promise<EffectiveAccess> {
  const own = <T extends { tenant_id: string }>(r: T | undefined): r is T => r !== undefined && r.tenant_id === user.tenant_id;
  const directRoleIds = withRoles ? ids(user.role_ids) : [];
  const directGroupIds = ids(user.group_ids);

  // Batch 1: direct roles + direct groups.
  const first = await readIfAny(reads, directRoleIds, directGroupIds);
  const directGroups = directGroupIds
    .map((id) => first.groups.get(id))
    .filter(own)
    .sort(byId);
  const directSet = new Set(directGroups.map((g) => g.id));

  // Batch 2: ancestors of the direct groups + roles of the direct groups.
  const ancestorIds = unique(directGroups.flatMap((g) => ids(g.ancestor_ids))).filter((id) => !directSet.has(id));
  const askedRoles = new Set(directRoleIds);
  const notAsked = (roleIds: string[]) => roleIds.filter((id) => !askedRoles.has(id) && askedRoles.add(id));
  const directGroupRoleIds = withRoles ? notAsked(unique(directGroups.flatMap((g) => ids(g.role_ids)))) : [];
  const second = await readIfAny(reads, directGroupRoleIds, ancestorIds);
  const ancestors = ancestorIds
    .map((id) => second.groups.get(id))
    .filter(own)
    .sort(byId);

  // Batch 3: roles of the ancestors not read yet.
  const known = new Map<string, RbacRole>();
  for (const batch of [first, second]) for (const [id, r] of batch.roles) known.set(id, r);
  const ancestorRoleIds = withRoles ? notAsked(unique(ancestors.flatMap((g) => ids(g.role_ids)))) : [];
  const third = await readIfAny(reads, ancestorRoleIds, []);
  for (const [id, r] of third.roles) known.set(id, r);

  const groups: EffectiveGroup[] = [
    ...directGroups.map((group) => ({ group, direct: true })),
    ...ancestors.map((group) => ({ group, direct: false })),
  ];
  if (!withRoles) return { permissions: new Map(), groups };

  const permissions = new Permissions();
  permissions.add(user.token_grants, { type: 'direct' });
  for (const id of directRoleIds) {
    const role = known.get(id);
    if (own(role)) permissions.add(role.token_grants, { type: 'role', id });
  }
  // A group's roles count once per group, whichever way the user reaches it.
  for (const { group } of groups) {
    for (const roleId of ids(group.role_ids)) {
      const role = known.get(roleId);
      if (own(role)) permissions.add(role.token_grants, { type: 'group', id: group.id });
    }
  }
  return { permissions: permissions.sorted(), groups };
}

const NO_RECORDS: RbacRecords = { roles: new Map(), groups: new Map() };

/** A batch with nothing to read is no call at all. */
const readIfAny = (reads: RbacRecordReads, roles: readonly string[], groups: readonly string[]): Promise<RbacRecords> =>
  roles.length || groups.length ? reads.read({ roles, groups }) : Promise.resolve(NO_RECORDS);

const unique = (xs: readonly string[]): string[] => [...new Set(xs)];
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const ORDER = { direct: 0, role: 1, group: 2 } as const;
const sourceKey = (s: PermissionSource) => `${ORDER[s.type]}:${'id' in s ? s.id : ''}`;

/** (resource, scope) → sources, each source once. */
class Permissions {
  private readonly byResource = new Map<string, Map<string, Map<string, PermissionSource>>>();

  add(grants: TokenGrants | undefined, source: PermissionSource): void {
    for (const [resourceId, scopes] of Object.entries(grants ?? {})) {
      for (const scopeId of Object.keys(scopes ?? {})) {
        let resource = this.byResource.get(resourceId);
        if (!resource) this.byResource.set(resourceId, (resource = new Map()));
        let sources = resource.get(scopeId);
        if (!sources) resource.set(scopeId, (sources = new Map()));
        sources.set(sourceKey(source), source);
      }
    }
  }

  sorted(): Map<string, Map<string, PermissionSource[]>> {
    const out = new Map<string, Map<string, PermissionSource[]>>();
    for (const [resourceId, scopes] of this.byResource) {
      const m = new Map<string, PermissionSource[]>();
      for (const [scopeId, sources] of scopes) {
        m.set(
          scopeId,
          [...sources.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s),
        );
      }
      if (m.size) out.set(resourceId, m);
    }
    return out;
  }
}
