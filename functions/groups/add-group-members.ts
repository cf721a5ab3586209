import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { GroupPath, UsersBody } from '#shared/management/groups/group-body-schemas.ts';
import { addGroupMembers } from '#shared/management/groups/group-members.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/groups/{group_id}/members: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: GroupPath, body: UsersBody, responses: NO_CONTENT }, async (req) => {
  await addGroupMembers(groupDeps(req.runtime), req.access, req.path.group_id, req.body.users);
  return noContent();
});
