import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { authorizeResourceClients } from '#shared/management/resources/authorize-resource-clients.ts';
import { clientIdsBody, resourcePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** POST /identity/v1/resources/{resource_id}/clients `{clients: [id]}` (docs/contract.md §6): 204. */
export const handler = managementHandler({ path: resourcePath, body: clientIdsBody, responses: NO_CONTENT }, async (req) => {
  await authorizeResourceClients(resourceDeps(req.runtime), req.access, req.path.resource_id, req.body.clients);
  return noContent();
});
