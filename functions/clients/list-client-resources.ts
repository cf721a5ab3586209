import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { clientResourcesCollection } from '#shared/lists/index.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { clientResourcesListQuery } from '#shared/management/clients/client-request.ts';
import { listClientResources } from '#shared/management/clients/list-client-resources.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/clients/{client_id}/resources (spec §4.3). */
export const handler = managementHandler(
  { path: ClientPath, query: clientResourcesListQuery, responses: { 200: list(clientResourcesCollection) } },
  async (req) => jsonResponse(200, await listClientResources(clientDeps(req.runtime), req.access, req.path.client_id, req.query)),
);
