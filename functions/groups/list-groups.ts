import { list } from '#shared/http/response-spec.ts';
import { groupEntity } from '#shared/management/groups/group-entity.ts';
import { groupListQuery } from '#shared/management/groups/group-request.ts';
import { listGroups } from '#shared/management/groups/list-groups.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/groups (docs/contract.md §6). */
export const handler = managementHandler({ query: groupListQuery, responses: { 200: list(groupEntity) } }, async (req) =>
  listResponse(groupEntity, await listGroups(groupDeps(req.runtime), req.access, req.query)),
);
