import { jsonResponse } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { AuthenticatorListSchema, listUserAuthenticators } from '#shared/management/users/authenticators/user-authenticators.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { authenticatorDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id}/authenticators: 200 `{items}` (docs/management-users.md "Authenticators"). */
export const handler = managementHandler(
  { path: UserPath, responses: { 200: json(AuthenticatorListSchema, 'Every authenticator of the user, oldest first') } },
  async (req) => jsonResponse(200, await listUserAuthenticators(authenticatorDeps(req.runtime), req.access, req.path.user_id)),
);
