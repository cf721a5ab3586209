import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { groupRolesCollection } from '#shared/lists/index.ts';
import { GroupPath } from '#shared/management/groups/group-body-schemas.ts';
import { groupRolesListQuery } from '#shared/management/groups/group-request.ts';
import { listGroupRoles } from '#shared/management/groups/group-roles.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/groups/{group_id}/roles (docs/contract.md §6). */
export const handler = managementHandler(
  { path: GroupPath, query: groupRolesListQuery, responses: { 200: list(groupRolesCollection) } },
  async (req) => jsonResponse(200, await listGroupRoles(groupDeps(req.runtime), req.access, req.path.group_id, req.query)),
);
