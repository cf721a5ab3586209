import type { TokenGrants } from './client-record.ts';
import type { AuditFields } from './common.ts';

/**
 * A Role (docs/contract.md §6) at `ROLE#{id}` / `ROLE`, in GSI1 `TENANT#{t}#ROLES`; `role_name` is unique per
 * tenant (marker `ROLE_NAME`, exact value). `token_grants` (resource id → { scope id: true }) is
 * the copy of its permissions the token path reads (store/token-copies.ts, holder kind `role`);
 * `links_version` is the optimistic lock of its links (docs/data-model.md §1). Neither, nor
 * `version`, is shown to callers.
 */
export interface RoleRecord extends AuditFields {
  id: string;
  tenant_id: string;
  role_name: string;
  role_description?: string;
  /** Direct links (docs/contract.md §7.6): permission items and member items. */
  aggregations: { permissions: number; members: number };
  token_grants: TokenGrants;
  token_grants_version: number;
  links_version: number;
  version: number;
}

export interface NewRole {
  id?: string;
  tenant_id: string;
  role_name: string;
  role_description?: string;
}

/** PATCH body: `null` removes the description. */
export interface RolePatch {
  role_name?: string;
  role_description?: string | null;
}

/**
 * A user holding a role (docs/contract.md §6 link records) at `ROLE#{role_id}` / `MEMBER#{user_id}`, seen
 * from the user through GSI2 `USER#{user_id}#ROLES` / role id: one item, both ends.
 */
export interface RoleMember extends AuditFields {
  id: string;
  tenant_id: string;
  role_id: string;
  user_id: string;
}

/**
 * A scope of a resource held by a role at `ROLE#{role_id}` / `PERMISSION#{resource_id}#{scope_id}`,
 * GSI2 `SCOPE#{scope_id}#HOLDERS` / `ROLE#{role_id}` (deleting the scope finds it).
 */
export interface RolePermission extends AuditFields {
  id: string;
  tenant_id: string;
  role_id: string;
  resource_id: string;
  scope_id: string;
}
