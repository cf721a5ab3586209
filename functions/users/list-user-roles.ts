import { listResponse } from '../../shared/management/kit/present-record.ts';
import { managementHandler } from '../../shared/management/management-handler.ts';
import { listUserRoles } from '../../shared/management/roles/list-user-roles.ts';
import { roleDeps } from '../../shared/management/roles/role-deps.ts';
import { userRoleEntity } from '../../shared/management/roles/role-entity.ts';
import { userRoleListQuery } from '../../shared/management/roles/role-request.ts';
import { UserPath } from '../../shared/management/users/user-body-schemas.ts';

/** GET /identity/v1/users/{user_id}/roles (API.md §6). */
export const handler = managementHandler({ path: UserPath, query: userRoleListQuery }, async (req) =>
  listResponse(userRoleEntity, await listUserRoles(roleDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
