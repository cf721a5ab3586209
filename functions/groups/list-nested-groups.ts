import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { nestedGroupsCollection } from '#shared/lists/index.ts';
import { GroupPath } from '#shared/management/groups/group-body-schemas.ts';
import { nestedGroupsListQuery } from '#shared/management/groups/group-request.ts';
import { listNestedGroups } from '#shared/management/groups/nested-groups.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/groups/{group_id}/groups (docs/contract.md §6, §7.6). */
export const handler = managementHandler(
  { path: GroupPath, query: nestedGroupsListQuery, responses: { 200: list(nestedGroupsCollection) } },
  async (req) => jsonResponse(200, await listNestedGroups(groupDeps(req.runtime), req.access, req.path.group_id, req.query)),
);
