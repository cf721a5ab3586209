import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { getUser } from '#shared/management/users/get-user.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { userEntity } from '#shared/management/users/user-entity.ts';
import { userRecordQuery } from '#shared/management/users/user-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id} (docs/contract.md §6). */
export const handler = managementHandler({ path: UserPath, query: userRecordQuery, responses: { 200: record(userEntity) } }, async (req) =>
  recordResponse(userEntity, 200, await getUser(userDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
