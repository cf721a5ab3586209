import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { listUserGroups } from '#shared/management/rbac/list-user-groups.ts';
import { userGroupEntity } from '#shared/management/rbac/rbac-entities.ts';
import { userGroupListQuery } from '#shared/management/rbac/rbac-request.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { rbacDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id}/groups (docs/contract.md §6, §7.6): direct and inherited groups, each with `direct`. */
export const handler = managementHandler(
  { path: UserPath, query: userGroupListQuery, responses: { 200: list(userGroupEntity) } },
  async (req) => jsonResponse(200, await listUserGroups(rbacDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
