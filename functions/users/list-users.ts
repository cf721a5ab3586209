import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listUsers } from '#shared/management/users/list-users.ts';
import { userEntity } from '#shared/management/users/user-entity.ts';
import { userListQuery } from '#shared/management/users/user-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users (docs/contract.md §6): lists; `q` on email, username or phone_number reads the markers. */
export const handler = managementHandler({ query: userListQuery, responses: { 200: list(userEntity) } }, async (req) =>
  listResponse(userEntity, await listUsers(userDeps(req.runtime), req.access, req.query)),
);
