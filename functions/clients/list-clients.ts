import { clientDeps } from '../../shared/management/clients/client-deps.ts';
import { clientListQuery, readsClientKeys } from '../../shared/management/clients/client-request.ts';
import { listClients } from '../../shared/management/clients/list-clients.ts';
import { clientResponse } from '../../shared/management/clients/present-client.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';

/** GET /identity/v1/clients (spec §4.3). */
export const handler = managementHandler({ query: clientListQuery }, async (req) => {
  const envelope = await listClients(clientDeps(req.runtime), req.ctx, req.query, await req.runtime.serviceSecret('cursor'), readsClientKeys(req.caller));
  return clientResponse(200, envelope as unknown as Record<string, unknown>, envelope.items);
});
