import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { grantUserPermissions } from '#shared/management/users/grant-user-permissions.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userPermissionDeps } from '#shared/wiring/users.ts';

/** POST /identity/v1/users/{user_id}/permissions: 204 (docs/contract.md §6), the user's direct permissions. */
export const handler = managementHandler({ path: UserPath, body: PermissionsBody, responses: NO_CONTENT }, async (req) => {
  await grantUserPermissions(userPermissionDeps(req.runtime), req.access, req.path.user_id, req.body.permissions);
  return noContent();
});
