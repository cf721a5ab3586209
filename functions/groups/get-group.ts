import { record } from '#shared/http/response-spec.ts';
import { getGroup } from '#shared/management/groups/get-group.ts';
import { GroupPath } from '#shared/management/groups/group-body-schemas.ts';
import { groupEntity } from '#shared/management/groups/group-entity.ts';
import { groupRecordQuery } from '#shared/management/groups/group-request.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/groups/{group_id} (docs/contract.md §6). */
export const handler = managementHandler(
  { path: GroupPath, query: groupRecordQuery, responses: { 200: record(groupEntity) } },
  async (req) => recordResponse(groupEntity, 200, await getGroup(groupDeps(req.runtime), req.access, req.path.group_id, req.query)),
);
