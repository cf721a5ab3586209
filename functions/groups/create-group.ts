import { record } from '#shared/http/response-spec.ts';
import { createGroup } from '#shared/management/groups/create-group.ts';
import { CreateGroupBody } from '#shared/management/groups/group-body-schemas.ts';
import { groupEntity } from '#shared/management/groups/group-entity.ts';
import { groupRecordQuery } from '#shared/management/groups/group-request.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { groupDeps } from '#shared/wiring/groups.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/groups (docs/contract.md §6): 201 with the Group. */
export const handler = managementHandler(
  { body: CreateGroupBody, query: groupRecordQuery, responses: { 201: record(groupEntity) } },
  async (req) => recordResponse(groupEntity, 201, await createGroup(groupDeps(req.runtime), req.access, req.body, req.query)),
);
