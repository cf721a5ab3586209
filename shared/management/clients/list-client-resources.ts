import { arraySource, clientResourcesCollection, listCollection, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { keys } from '../../store/keys.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';
import { addResourceData } from './link-data.ts';
import { clientResourceView } from './link-views.ts';
import { loadVisibleClient } from './load-visible-client.ts';

/**
 * GET /clients/{client_id}/resources (spec §4.3): the client's resource links (spec §2.5), with
 * `resource_data` under `expand=all`. A client's links are one consistent Query of its partition
 * (docs/data-model.md pattern 19) and few, so the list machinery pages them in memory.
 */
export async function listClientResources(deps: ClientDeps, ctx: ManagementContext, clientId: string, params: ListParams, cursorKey: Buffer): Promise<ListEnvelope> {
  await loadVisibleClient(deps, ctx, clientId);
  const links = await deps.links.listForClient(clientId);
  const source = arraySource(`${keys.clientPartition(clientId)}|${keys.clientLinkPrefix}`, links.map(clientResourceView), {
    expand: (views) => addResourceData(deps, views),
  });
  return listCollection({ spec: clientResourcesCollection, source, params, cursorKey });
}
