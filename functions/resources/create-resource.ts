import { jsonResponse } from '../../shared/http/response.ts';
import { recordQuerySchema, resourcesCollection } from '../../shared/lists/index.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { createResource } from '../../shared/management/resources/create-resource.ts';
import { createResourceBody } from '../../shared/management/resources/resource-bodies.ts';
import { resourceAccess, resourceDeps } from '../../shared/management/resources/resource-deps.ts';
import { secretHeaders } from '../../shared/management/resources/secret-headers.ts';

/** POST /identity/v1/resources (spec §4.3 "Create a resource"): 201 Resource. */
export const handler = managementHandler({ body: createResourceBody, query: recordQuerySchema(resourcesCollection) }, async (req) => {
  const access = resourceAccess(req);
  return jsonResponse(201, await createResource(resourceDeps(req.runtime), access, req.body, req.query), secretHeaders(access));
});
