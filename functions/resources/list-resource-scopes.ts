import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { listQuerySchema, scopesCollection } from '#shared/lists/index.ts';
import { listResourceScopes } from '#shared/management/resources/list-resource-scopes.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** GET /identity/v1/resources/{resource_id}/scopes (docs/contract.md §6). */
export const handler = managementHandler(
  { path: resourcePath, query: listQuerySchema(scopesCollection), responses: { 200: list(scopesCollection) } },
  async (req) => jsonResponse(200, await listResourceScopes(resourceDeps(req.runtime), req.access, req.path.resource_id, req.query)),
);
