import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { listUserPermissions } from '#shared/management/rbac/list-user-permissions.ts';
import { userPermissionEntity } from '#shared/management/rbac/rbac-entities.ts';
import { userPermissionListQuery } from '#shared/management/rbac/rbac-request.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { rbacDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id}/permissions (docs/contract.md §6, §7.6): effective permissions with their sources. */
export const handler = managementHandler(
  { path: UserPath, query: userPermissionListQuery, responses: { 200: list(userPermissionEntity) } },
  async (req) => jsonResponse(200, await listUserPermissions(rbacDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
