import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteResource } from '#shared/management/resources/delete-resource.ts';
import { resourcePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** DELETE /identity/v1/resources/{resource_id} (docs/contract.md §6): 204; the system resource: 403. */
export const handler = managementHandler({ path: resourcePath, responses: NO_CONTENT }, async (req) => {
  await deleteResource(resourceDeps(req.runtime), req.access, req.path.resource_id);
  return noContent();
});
