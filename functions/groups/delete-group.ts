import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteGroup } from '#shared/management/groups/delete-group.ts';
import { GroupPath } from '#shared/management/groups/group-body-schemas.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** DELETE /identity/v1/groups/{group_id}: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: GroupPath, responses: NO_CONTENT }, async (req) => {
  await deleteGroup(groupDeps(req.runtime), req.access, req.path.group_id);
  return noContent();
});
