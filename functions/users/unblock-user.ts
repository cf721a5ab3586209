import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { setUserBlocked } from '#shared/management/users/set-user-blocked.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { userEntity } from '#shared/management/users/user-entity.ts';
import { userRecordQuery } from '#shared/management/users/user-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** POST /identity/v1/users/{user_id}/unblock: 200 with the User (docs/contract.md §7.5). */
export const handler = managementHandler({ path: UserPath, query: userRecordQuery, responses: { 200: record(userEntity) } }, async (req) =>
  recordResponse(userEntity, 200, await setUserBlocked(userDeps(req.runtime), req.access, req.path.user_id, false, req.query)),
);
