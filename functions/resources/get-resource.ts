import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, resourcesCollection } from '#shared/lists/index.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { getResource } from '#shared/management/resources/get-resource.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { resourceEntity } from '#shared/management/resources/resource-entity.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** GET /identity/v1/resources/{resource_id} (spec §4.3 "Get a resource"). */
export const handler = managementHandler(
  { path: resourcePath, query: recordQuerySchema(resourcesCollection), responses: { 200: record(resourceEntity) } },
  async (req) => {
    return recordResponse(resourceEntity, 200, await getResource(resourceDeps(req.runtime), req.access, req.path.resource_id, req.query));
  },
);
