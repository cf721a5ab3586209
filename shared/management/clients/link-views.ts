import type { ClientPermission, ClientResourceLink } from '../../records/client-link-records.ts';

/** A client-resource link (spec §2.5) without storage fields; `resource_data` is added under expand=all. */
export function clientResourceView(l: ClientResourceLink): Record<string, unknown> {
  return {
    id: l.id,
    tenant_id: l.tenant_id,
    client_id: l.client_id,
    resource_id: l.resource_id,
    created_by: l.created_by,
    created_at: l.created_at,
    updated_by: l.updated_by,
    updated_at: l.updated_at,
  };
}

/** A client permission (spec §2.6); `resource_data` and `scope_data` are added under expand=all. */
export function clientPermissionView(p: ClientPermission): Record<string, unknown> {
  return {
    id: p.id,
    tenant_id: p.tenant_id,
    client_id: p.client_id,
    resource_id: p.resource_id,
    scope_id: p.scope_id,
    created_by: p.created_by,
    created_at: p.created_at,
    updated_by: p.updated_by,
    updated_at: p.updated_at,
  };
}
