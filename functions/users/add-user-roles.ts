import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { addUserRoles } from '#shared/management/roles/add-user-roles.ts';
import { UserRolesBody } from '#shared/management/roles/role-body-schemas.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** POST /identity/v1/users/{user_id}/roles: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: UserPath, body: UserRolesBody, responses: NO_CONTENT }, async (req) => {
  await addUserRoles(roleDeps(req.runtime), req.access, req.path.user_id, req.body.roles);
  return noContent();
});
