import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteRole } from '#shared/management/roles/delete-role.ts';
import { RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** DELETE /identity/v1/roles/{role_id}: 204 (docs/contract.md §6); links go in pages (docs/management-roles.md). */
export const handler = managementHandler({ path: RolePath, responses: NO_CONTENT }, async (req) => {
  await deleteRole(roleDeps(req.runtime), req.access, req.path.role_id);
  return noContent();
});
