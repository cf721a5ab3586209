import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { GroupPath, GroupsBody } from '#shared/management/groups/group-body-schemas.ts';
import { addNestedGroups } from '#shared/management/groups/nested-groups.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/groups/{group_id}/groups: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: GroupPath, body: GroupsBody, responses: NO_CONTENT }, async (req) => {
  await addNestedGroups(groupDeps(req.runtime), req.access, req.path.group_id, req.body.groups);
  return noContent();
});
