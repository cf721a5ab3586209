import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { ResourcesBody } from '#shared/management/clients/link-body-schemas.ts';
import { revokeClientResources } from '#shared/management/clients/revoke-client-resources.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** DELETE /identity/v1/clients/{client_id}/resources: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: ClientPath, body: ResourcesBody, responses: NO_CONTENT }, async (req) => {
  await revokeClientResources(clientDeps(req.runtime), req.access, req.path.client_id, req.body.resources);
  return noContent();
});
