import type { AuditFields } from './common.ts';

/** A set of ids as stored: a map id → true, so one id is added or removed by a document path. */
export type IdSet = Record<string, true>;

/**
 * A Group (docs/contract.md §6) as stored at `GROUP#{id}` / `GROUP` (GSI1 `TENANT#{t}#GROUPS` / id), with
 * the marker `UNIQUE#GROUP_NAME#{tenant}#{group_name lower-cased}` put, moved and deleted in the
 * same transaction as the record.
 *
 * Beyond docs/contract.md §6 it stores the small copies the token path reads (docs/management-groups.md),
 * never shown to a caller (GROUP_STORAGE_ONLY):
 * - `role_ids`: its direct roles (the group-role links it holds);
 * - `parent_ids`: its direct parents; `ancestor_ids`: every ancestor (the closure upward);
 * - `depth`: the longest chain from a root down to it (a root = 1); `height`: the longest chain
 *   from it down to a leaf (a leaf = 1). Both bound nesting at 10 levels (docs/contract.md §7.6);
 * - `version` (+1 per change of its own fields) and `links_version` (+1 per link change).
 */
export interface GroupRecord extends AuditFields {
  id: string;
  tenant_id: string;
  group_name: string;
  group_description?: string;
  aggregations: { members: number; roles: number; groups: number };
  role_ids: IdSet;
  parent_ids: IdSet;
  ancestor_ids: IdSet;
  depth: number;
  height: number;
  version: number;
  links_version: number;
}

export const GROUP_STORAGE_ONLY = ['role_ids', 'parent_ids', 'ancestor_ids', 'depth', 'height', 'version', 'links_version'] as const;

/** A group is unique per tenant by name, compared without case (`Admins` and `admins` are one). */
export const groupNameMarkerValue = (name: string): string => name.toLowerCase();

export interface NewGroup {
  id?: string;
  tenant_id: string;
  group_name: string;
  group_description?: string;
}

/** PATCH: `group_description: null` removes it. */
export interface GroupPatch {
  group_name?: string;
  group_description?: string | null;
}

interface LinkAudit extends AuditFields {
  /** UUIDv7 of the link. */
  id: string;
  tenant_id: string;
}

/** `GROUP#{g}` / `MEMBER#{u}` (GSI2 `USER#{u}#GROUPS` / g): one item seen from both ends. */
export interface GroupMemberLink extends LinkAudit {
  group_id: string;
  user_id: string;
}

/** `GROUP#{g}` / `ROLE#{r}` (GSI2 `ROLE#{r}#GROUPS` / g). */
export interface GroupRoleLink extends LinkAudit {
  group_id: string;
  role_id: string;
}

/** `GROUP#{parent}` / `CHILD#{child}` (GSI2 `GROUP#{child}#PARENTS` / parent); docs/contract.md §7.6 names. */
export interface NestedGroupLink extends LinkAudit {
  parent_group_id: string;
  /** The child. */
  group_id: string;
}

/** docs/contract.md §7.6: a chain of 10 groups is allowed, an 11th level is 409. */
export const MAX_GROUP_DEPTH = 10;
