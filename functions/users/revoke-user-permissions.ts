import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { revokeUserPermissions } from '#shared/management/users/revoke-user-permissions.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userPermissionDeps } from '#shared/wiring/users.ts';

/** DELETE /identity/v1/users/{user_id}/permissions: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: UserPath, body: PermissionsBody, responses: NO_CONTENT }, async (req) => {
  await revokeUserPermissions(userPermissionDeps(req.runtime), req.access, req.path.user_id, req.body.permissions);
  return noContent();
});
