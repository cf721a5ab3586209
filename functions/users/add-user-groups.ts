import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { GroupsBody, UserGroupsPath } from '#shared/management/groups/group-body-schemas.ts';
import { addUserGroups } from '#shared/management/groups/group-members.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/users/{user_id}/groups: 204 (docs/contract.md §6), the same links as /groups/{group_id}/members. */
export const handler = managementHandler({ path: UserGroupsPath, body: GroupsBody, responses: NO_CONTENT }, async (req) => {
  await addUserGroups(groupDeps(req.runtime), req.access, req.path.user_id, req.body.groups);
  return noContent();
});
