import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { clientPermissionsCollection } from '#shared/lists/index.ts';
import { ClientPath } from '#shared/management/clients/client-body-schemas.ts';
import { clientPermissionsListQuery } from '#shared/management/clients/client-request.ts';
import { listClientPermissions } from '#shared/management/clients/list-client-permissions.ts';
import { clientDeps } from '#shared/wiring/clients.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/clients/{client_id}/permissions (spec §4.3). */
export const handler = managementHandler(
  { path: ClientPath, query: clientPermissionsListQuery, responses: { 200: list(clientPermissionsCollection) } },
  async (req) => jsonResponse(200, await listClientPermissions(clientDeps(req.runtime), req.access, req.path.client_id, req.query)),
);
