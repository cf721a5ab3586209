import { arraySource, listCollection, resourceClientsCollection, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import { keys } from '../../store/keys.ts';
import { clientView } from '../clients/client-view.ts';
import type { ManagementContext } from '../management-context.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { resourceClientView } from './resource-client-view.ts';

type View = Record<string, unknown>;

/**
 * `GET /resources/{id}/clients` (API.md §6, spec §2.9): the resource's client links, each
 * `authorized: true`, with `client_data` under `expand=all`. The links come from the GSI2 reverse
 * index (docs/data-model.md pattern 20), small enough to list in memory. A link to a global client
 * of another tenant is listed (it is part of this resource and counted in its aggregations) but a
 * non-global caller gets `client_data: null` for it (API.md §4: that client is invisible to it),
 * as for a client deleted between the list and the expansion.
 */
export async function listResourceClients(deps: ResourceDeps, access: ResourceAccess, resourceId: string, params: ListParams): Promise<ListEnvelope> {
  await loadResource(deps, resourceId, access.ctx);
  const links = (await deps.links.listForResource(resourceId)).map(resourceClientView);
  const source = arraySource(keys.resourceClients(resourceId), links, { expand: (page) => withClientData(deps, page, access.ctx) });
  return listCollection({ spec: resourceClientsCollection, source, params, cursorKey: await deps.cursorKey() });
}

async function withClientData(deps: Pick<ResourceDeps, 'clients'>, page: View[], ctx: ManagementContext): Promise<View[]> {
  const clients = await Promise.all(page.map((link) => deps.clients.get(String(link.client_id))));
  return page.map((link, i) => {
    const c: ClientRecord | undefined = clients[i];
    const visible = c !== undefined && (ctx.isGlobal || c.tenant_id === ctx.tenantId);
    // Never the client's secret: a `read:resources` caller is not a `read:client_keys` caller.
    return { ...link, client_data: visible ? clientView(c) : null };
  });
}
