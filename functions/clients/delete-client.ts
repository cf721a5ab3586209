import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { deleteClient } from '#shared/management/clients/delete-client.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** DELETE /identity/v1/clients/{client_id}: 204 (docs/contract.md §6); the Default Client: 403. */
export const handler = managementHandler({ path: ClientPath, responses: NO_CONTENT }, async (req) => {
  await deleteClient(clientDeps(req.runtime), req.access, req.path.client_id);
  return noContent();
});
