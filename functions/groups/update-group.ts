import { record } from '#shared/http/response-spec.ts';
import { GroupPath, UpdateGroupBody } from '#shared/management/groups/group-body-schemas.ts';
import { groupEntity } from '#shared/management/groups/group-entity.ts';
import { groupRecordQuery } from '#shared/management/groups/group-request.ts';
import { updateGroup } from '#shared/management/groups/update-group.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** PATCH and PUT /identity/v1/groups/{group_id} (docs/contract.md §6: PUT is a synonym, both merge). */
export const handler = managementHandler(
  { path: GroupPath, body: UpdateGroupBody, query: groupRecordQuery, responses: { 200: record(groupEntity) } },
  async (req) =>
    recordResponse(groupEntity, 200, await updateGroup(groupDeps(req.runtime), req.access, req.path.group_id, req.body, req.query)),
);
