import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { addRoleMembers } from '#shared/management/roles/add-role-members.ts';
import { RoleMembersBody, RolePath } from '#shared/management/roles/role-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** POST /identity/v1/roles/{role_id}/members: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: RolePath, body: RoleMembersBody, responses: NO_CONTENT }, async (req) => {
  await addRoleMembers(roleDeps(req.runtime), req.access, req.path.role_id, req.body.users);
  return noContent();
});
