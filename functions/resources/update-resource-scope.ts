import { jsonResponse } from '#shared/http/response.ts';
import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, scopesCollection } from '#shared/lists/index.ts';
import { scopePath } from '#shared/management/resources/request-params.ts';
import { updateScopeBody } from '#shared/management/resources/scope-bodies.ts';
import { updateResourceScope } from '#shared/management/resources/update-resource-scope.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** PATCH and PUT /identity/v1/resources/{resource_id}/scopes/{scope_id} (docs/contract.md §6). */
export const handler = managementHandler(
  { path: scopePath, body: updateScopeBody, query: recordQuerySchema(scopesCollection), responses: { 200: record(scopesCollection) } },
  async (req) => {
    const { resource_id, scope_id } = req.path;
    return jsonResponse(200, await updateResourceScope(resourceDeps(req.runtime), req.access, resource_id, scope_id, req.body, req.query));
  },
);
