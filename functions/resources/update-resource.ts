import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, resourcesCollection } from '#shared/lists/index.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { updateResourceBody } from '#shared/management/resources/resource-bodies.ts';
import { resourceEntity } from '#shared/management/resources/resource-entity.ts';
import { updateResource } from '#shared/management/resources/update-resource.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** PATCH and PUT /identity/v1/resources/{resource_id} (spec §4.3 "Modify a resource"; docs/contract.md §6: PUT = PATCH). */
export const handler = managementHandler(
  {
    path: resourcePath,
    body: updateResourceBody,
    query: recordQuerySchema(resourcesCollection),
    responses: { 200: record(resourceEntity) },
  },
  async (req) => {
    const resource = await updateResource(resourceDeps(req.runtime), req.access, req.path.resource_id, req.body, req.query);
    return recordResponse(resourceEntity, 200, resource);
  },
);
