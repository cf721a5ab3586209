import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientPermissionEntity } from './client-entity.ts';

/**
 * GET /clients/{client_id}/permissions (spec §4.3): the client's permissions (spec §2.6), with
 * `resource_data` and `scope_data` under `expand=all`. One consistent Query of the client's
 * partition (docs/data-model.md pattern 22), paged in memory by the list machinery.
 */
export async function listClientPermissions(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.clients, id: clientId, noun: 'Client' };
  return listChildren(
    clientPermissionEntity,
    deps,
    access,
    parent,
    `clients/${clientId}/permissions`,
    () => deps.permissions.listForClient(clientId),
    params,
  );
}
