import { jsonResponse } from '#shared/http/response.ts';
import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, scopesCollection } from '#shared/lists/index.ts';
import { getResourceScope } from '#shared/management/resources/get-resource-scope.ts';
import { scopePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** GET /identity/v1/resources/{resource_id}/scopes/{scope_id} (docs/contract.md §6). */
export const handler = managementHandler(
  { path: scopePath, query: recordQuerySchema(scopesCollection), responses: { 200: record(scopesCollection) } },
  async (req) =>
    jsonResponse(200, await getResourceScope(resourceDeps(req.runtime), req.access, req.path.resource_id, req.path.scope_id, req.query)),
);
