import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { listQuerySchema, resourceClientsCollection } from '#shared/lists/index.ts';
import { listResourceClients } from '#shared/management/resources/list-resource-clients.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** GET /identity/v1/resources/{resource_id}/clients (docs/contract.md §6, spec §2.9). */
export const handler = managementHandler(
  { path: resourcePath, query: listQuerySchema(resourceClientsCollection), responses: { 200: list(resourceClientsCollection) } },
  async (req) => jsonResponse(200, await listResourceClients(resourceDeps(req.runtime), req.access, req.path.resource_id, req.query)),
);
