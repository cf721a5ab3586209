import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { groupMembersCollection } from '#shared/lists/index.ts';
import { GroupPath } from '#shared/management/groups/group-body-schemas.ts';
import { listGroupMembers } from '#shared/management/groups/group-members.ts';
import { groupMembersListQuery } from '#shared/management/groups/group-request.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/groups/{group_id}/members (docs/contract.md §6). */
export const handler = managementHandler(
  { path: GroupPath, query: groupMembersListQuery, responses: { 200: list(groupMembersCollection) } },
  async (req) => jsonResponse(200, await listGroupMembers(groupDeps(req.runtime), req.access, req.path.group_id, req.query)),
);
