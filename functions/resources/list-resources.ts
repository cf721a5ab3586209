import { list } from '#shared/http/response-spec.ts';
import { listQuerySchema, resourcesCollection } from '#shared/lists/index.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listResources } from '#shared/management/resources/list-resources.ts';
import { resourceEntity } from '#shared/management/resources/resource-entity.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** GET /identity/v1/resources (spec §4.3 "Get resources"; docs/contract.md §3, §6). */
export const handler = managementHandler(
  { query: listQuerySchema(resourcesCollection), responses: { 200: list(resourceEntity) } },
  async (req) => {
    return listResponse(resourceEntity, await listResources(resourceDeps(req.runtime), req.access, req.query));
  },
);
