import { list } from '#shared/http/response-spec.ts';
import { listUserGrants, userGrantEntity, userGrantListQuery } from '#shared/management/grants/user-grants.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { grantDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id}/grants (docs/contract.md §6; docs/browser-flows.md "User Grants"). */
export const handler = managementHandler(
  { path: UserPath, query: userGrantListQuery, responses: { 200: list(userGrantEntity) } },
  async (req) => listResponse(userGrantEntity, await listUserGrants(grantDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
