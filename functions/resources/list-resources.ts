import { jsonResponse } from '../../shared/http/response.ts';
import { listQuerySchema, resourcesCollection } from '../../shared/lists/index.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { listResources } from '../../shared/management/resources/list-resources.ts';
import { resourceAccess, resourceDeps } from '../../shared/management/resources/resource-deps.ts';
import { secretHeaders } from '../../shared/management/resources/secret-headers.ts';

/** GET /identity/v1/resources (spec §4.3 "Get resources"; API.md §3, §6). */
export const handler = managementHandler({ query: listQuerySchema(resourcesCollection) }, async (req) => {
  const access = resourceAccess(req);
  return jsonResponse(200, await listResources(resourceDeps(req.runtime), access, req.query), secretHeaders(access));
});
