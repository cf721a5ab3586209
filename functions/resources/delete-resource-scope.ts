import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteResourceScope } from '#shared/management/resources/delete-resource-scope.ts';
import { scopePath } from '#shared/management/resources/request-params.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { resourceDeps } from '#shared/wiring/resources.ts';

/** DELETE /identity/v1/resources/{resource_id}/scopes/{scope_id} (docs/contract.md §6): 204; removes the scope's grants. */
export const handler = managementHandler({ path: scopePath, responses: NO_CONTENT }, async (req) => {
  await deleteResourceScope(resourceDeps(req.runtime), req.access, req.path.resource_id, req.path.scope_id);
  return noContent();
});
