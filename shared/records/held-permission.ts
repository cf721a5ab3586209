import type { AuditFields } from './common.ts';

/** Who holds a permission besides clients: a role, or a user directly (docs/contract.md §6). */
export type PermissionHolderKind = 'role' | 'user';

/**
 * A scope of a resource held directly by a user at `USER#{user_id}` /
 * `PERMISSION#{resource_id}#{scope_id}`, GSI2 `SCOPE#{scope_id}#HOLDERS` / `USER#{user_id}`
 * (deleting the scope finds it). The user item's `token_grants` (resource id → { scope id: true })
 * is the copy of these the token path reads (store/token-copies.ts, holder kind `user`).
 */
export interface UserPermission extends AuditFields {
  id: string;
  tenant_id: string;
  user_id: string;
  resource_id: string;
  scope_id: string;
}

/** A role's or a user's permission (RolePermission or UserPermission): the holder's id field is set. */
export interface HeldPermission extends AuditFields {
  id: string;
  tenant_id: string;
  role_id?: string;
  user_id?: string;
  resource_id: string;
  scope_id: string;
}
