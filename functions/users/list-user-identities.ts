import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { listUserIdentities, userIdentityEntity, userIdentityListQuery } from '#shared/management/users/user-identities.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userIdentityDeps } from '#shared/wiring/user-identities.ts';

/** GET /identity/v1/users/{user_id}/identities (docs/contract.md §6; docs/management-users.md "User identities"). */
export const handler = managementHandler(
  { path: UserPath, query: userIdentityListQuery, responses: { 200: list(userIdentityEntity) } },
  async (req) =>
    listResponse(userIdentityEntity, await listUserIdentities(userIdentityDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
