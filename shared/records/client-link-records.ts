import type { AuditFields } from './common.ts';

/**
 * A resource authorized to a client (spec §2.5 / §2.9) at `CLIENT#{client_id}` /
 * `RESOURCE#{resource_id}`, reverse-indexed by GSI2 `RESOURCE#{resource_id}#CLIENTS` / client id.
 * Links are created and deleted, never modified (updated_* = created_*). `tenant_id` is the
 * client's tenant.
 */
export interface ClientResourceLink extends AuditFields {
  id: string;
  tenant_id: string;
  client_id: string;
  resource_id: string;
}

/**
 * A scope of a resource granted to a client (spec §2.6) at `CLIENT#{client_id}` /
 * `PERMISSION#{resource_id}#{scope_id}`, reverse-indexed by GSI2 `SCOPE#{scope_id}#HOLDERS` /
 * `CLIENT#{client_id}`. Requires the link of the same client and resource.
 */
export interface ClientPermission extends AuditFields {
  id: string;
  tenant_id: string;
  client_id: string;
  resource_id: string;
  scope_id: string;
}

/** Body of grant/revoke (spec §4.3): scope ids per resource. */
export interface PermissionRequest {
  resource_id: string;
  scopes: string[];
}
