import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { grantRolePermissions } from '#shared/management/roles/grant-role-permissions.ts';
import { RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** POST /identity/v1/roles/{role_id}/permissions: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: RolePath, body: PermissionsBody, responses: NO_CONTENT }, async (req) => {
  await grantRolePermissions(roleDeps(req.runtime), req.access, req.path.role_id, req.body.permissions);
  return noContent();
});
