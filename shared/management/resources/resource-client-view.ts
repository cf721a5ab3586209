import type { ClientResourceLink } from '../../records/client-link-records.ts';

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
