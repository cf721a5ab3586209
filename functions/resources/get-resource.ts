import { jsonResponse } from '../../shared/http/response.ts';
import { recordQuerySchema, resourcesCollection } from '../../shared/lists/index.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { getResource } from '../../shared/management/resources/get-resource.ts';
import { resourcePath } from '../../shared/management/resources/request-params.ts';
import { resourceAccess, resourceDeps } from '../../shared/management/resources/resource-deps.ts';
import { secretHeaders } from '../../shared/management/resources/secret-headers.ts';

/** GET /identity/v1/resources/{resource_id} (spec §4.3 "Get a resource"). */
export const handler = managementHandler({ path: resourcePath, query: recordQuerySchema(resourcesCollection) }, async (req) => {
  const access = resourceAccess(req);
  return jsonResponse(200, await getResource(resourceDeps(req.runtime), access, req.path.resource_id, req.query), secretHeaders(access));
});
