import { record } from '#shared/http/response-spec.ts';
import { recordQuerySchema, resourcesCollection } from '#shared/lists/index.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { createResource } from '#shared/management/resources/create-resource.ts';
import { createResourceBody } from '#shared/management/resources/resource-bodies.ts';
import { resourceEntity } from '#shared/management/resources/resource-entity.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** POST /identity/v1/resources (spec §4.3 "Create a resource"): 201 Resource. */
export const handler = managementHandler(
  { body: createResourceBody, query: recordQuerySchema(resourcesCollection), responses: { 201: record(resourceEntity) } },
  async (req) => {
    return recordResponse(resourceEntity, 201, await createResource(resourceDeps(req.runtime), req.access, req.body, req.query));
  },
);
