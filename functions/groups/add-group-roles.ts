import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { GroupPath, RolesBody } from '#shared/management/groups/group-body-schemas.ts';
import { addGroupRoles } from '#shared/management/groups/group-roles.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/groups/{group_id}/roles: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: GroupPath, body: RolesBody, responses: NO_CONTENT }, async (req) => {
  await addGroupRoles(groupDeps(req.runtime), req.access, req.path.group_id, req.body.roles);
  return noContent();
});
