import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listUserRoles } from '#shared/management/roles/list-user-roles.ts';
import { userRoleEntity } from '#shared/management/roles/role-entity.ts';
import { userRoleListQuery } from '#shared/management/roles/role-request.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { roleDeps } from '#shared/wiring/roles.ts';

/** GET /identity/v1/users/{user_id}/roles (docs/contract.md §6). */
export const handler = managementHandler(
  { path: UserPath, query: userRoleListQuery, responses: { 200: list(userRoleEntity) } },
  async (req) => listResponse(userRoleEntity, await listUserRoles(roleDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
