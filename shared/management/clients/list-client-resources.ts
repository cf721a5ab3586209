import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientResourceEntity } from './client-entity.ts';

/**
 * GET /clients/{client_id}/resources (spec §4.3): the client's resource links (spec §2.5), with
 * `resource_data` under `expand=all`. A client's links are one consistent Query of its partition
 * (docs/data-model.md pattern 19) and few, so the list machinery pages them in memory; the source
 * id (the list's path) binds cursors to this client's links (docs/lists.md §5).
 */
export async function listClientResources(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.clients, id: clientId, noun: 'Client' };
  return listChildren(
    clientResourceEntity,
    deps,
    access,
    parent,
    `clients/${clientId}/resources`,
    () => deps.links.listForClient(clientId),
    params,
  );
}
