import { jsonResponse } from '../../shared/http/response.ts';
import { recordQuerySchema, resourcesCollection } from '../../shared/lists/index.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { resourcePath } from '../../shared/management/resources/request-params.ts';
import { updateResourceBody } from '../../shared/management/resources/resource-bodies.ts';
import { resourceAccess, resourceDeps } from '../../shared/management/resources/resource-deps.ts';
import { secretHeaders } from '../../shared/management/resources/secret-headers.ts';
import { updateResource } from '../../shared/management/resources/update-resource.ts';

/** PATCH and PUT /identity/v1/resources/{resource_id} (spec §4.3 "Modify a resource"; API.md §6: PUT = PATCH). */
export const handler = managementHandler(
  { path: resourcePath, body: updateResourceBody, query: recordQuerySchema(resourcesCollection) },
  async (req) => {
    const access = resourceAccess(req);
    const resource = await updateResource(resourceDeps(req.runtime), access, req.path.resource_id, req.body, req.query);
    return jsonResponse(200, resource, secretHeaders(access));
  },
);
