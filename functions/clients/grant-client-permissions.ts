import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { grantClientPermissions } from '#shared/management/clients/grant-client-permissions.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/clients/{client_id}/permissions: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: ClientPath, body: PermissionsBody, responses: NO_CONTENT }, async (req) => {
  await grantClientPermissions(clientDeps(req.runtime), req.access, req.path.client_id, req.body.permissions);
  return noContent();
});
