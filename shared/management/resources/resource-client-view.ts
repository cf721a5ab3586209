import type { ClientResourceLink } from '../../records/client-link-records.ts';
import type { ClientRecord } from '../../records/client-record.ts';

/**
 * A resource-client link (spec §2.9): the stored link seen from the resource's side, always
 * `authorized: true` (a link exists only while the client is authorized; API.md §6).
 */
export function resourceClientView(link: ClientResourceLink): Record<string, unknown> {
  return {
    id: link.id,
    tenant_id: link.tenant_id,
    resource_id: link.resource_id,
    client_id: link.client_id,
    authorized: true,
    created_by: link.created_by,
    created_at: link.created_at,
    updated_by: link.updated_by,
    updated_at: link.updated_at,
  };
}

/**
 * `client_data` of a link under `expand=all` (spec §2.9: "a Client"): the client's public fields
 * with spec §2.4 aggregations. Never its secret: a `read:resources` caller is not a
 * `read:clients` + `read:client_keys` caller, and the hash and sealed copy are storage fields.
 */
export function clientDataView(c: ClientRecord): Record<string, unknown> {
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    client_type: c.client_type,
    client_name: c.client_name,
    ...(c.client_description !== undefined ? { client_description: c.client_description } : {}),
    client_secret_expires_at: c.client_secret_expires_at,
    client_metadata: c.client_metadata,
    app_metadata: c.app_metadata,
    is_public: c.is_public,
    is_first_party: c.is_first_party,
    is_global: c.is_global,
    aggregations: {
      id: c.id,
      client_id: c.id,
      resources: c.aggregations.resources,
      permissions: c.aggregations.permissions,
      created_by: c.created_by,
      created_at: c.created_at,
      updated_by: c.updated_by,
      updated_at: c.updated_at,
    },
    created_by: c.created_by,
    created_at: c.created_at,
    updated_by: c.updated_by,
    updated_at: c.updated_at,
  };
}
