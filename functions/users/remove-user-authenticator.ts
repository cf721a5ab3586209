import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { removeUserAuthenticator, UserAuthenticatorPath } from '#shared/management/users/authenticators/user-authenticators.ts';
import { OtpBody } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { authenticatorDeps } from '#shared/wiring/users.ts';

/** DELETE /identity/v1/users/{user_id}/authenticators/{authenticator_id}: 204 (docs/management-users.md "Authenticators"); the user itself sends `{password}`. */
export const handler = managementHandler({ path: UserAuthenticatorPath, body: OtpBody, responses: NO_CONTENT }, async (req) => {
  await removeUserAuthenticator(authenticatorDeps(req.runtime), req.access, req.path.user_id, req.path.authenticator_id, req.body);
  return noContent();
});
