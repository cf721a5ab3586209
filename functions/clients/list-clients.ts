import { list } from '#shared/http/response-spec.ts';
import { clientEntity } from '#shared/management/clients/client-entity.ts';
import { clientListQuery } from '#shared/management/clients/client-request.ts';
import { listClients } from '#shared/management/clients/list-clients.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/clients (spec §4.3). */
export const handler = managementHandler({ query: clientListQuery, responses: { 200: list(clientEntity) } }, async (req) => {
  return listResponse(clientEntity, await listClients(clientDeps(req.runtime), req.access, req.query));
});
