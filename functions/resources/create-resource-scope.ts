import { jsonResponse } from '#shared/http/response.ts';
import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, scopesCollection } from '#shared/lists/index.ts';
import { createResourceScope } from '#shared/management/resources/create-resource-scope.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { createScopeBody } from '#shared/management/resources/scope-bodies.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** POST /identity/v1/resources/{resource_id}/scopes (docs/contract.md §6): 201 Scope. */
export const handler = managementHandler(
  { path: resourcePath, body: createScopeBody, query: recordQuerySchema(scopesCollection), responses: { 201: record(scopesCollection) } },
  async (req) =>
    jsonResponse(201, await createResourceScope(resourceDeps(req.runtime), req.access, req.path.resource_id, req.body, req.query)),
);
