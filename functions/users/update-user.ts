import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { updateUser } from '#shared/management/users/update-user.ts';
import { UpdateUserBody, UserPath } from '#shared/management/users/user-body-schemas.ts';
import { userEntity } from '#shared/management/users/user-entity.ts';
import { userRecordQuery } from '#shared/management/users/user-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** PATCH and PUT /identity/v1/users/{user_id} (docs/contract.md §6: PUT is a synonym, both merge). */
export const handler = managementHandler(
  { path: UserPath, body: UpdateUserBody, query: userRecordQuery, responses: { 200: record(userEntity) } },
  async (req) =>
    recordResponse(userEntity, 200, await updateUser(userDeps(req.runtime), req.access, req.path.user_id, req.body, req.query)),
);
