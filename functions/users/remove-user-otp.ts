import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { removeUserOtp } from '#shared/management/users/remove-user-otp.ts';
import { OtpBody, UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** DELETE /identity/v1/users/{user_id}/otp: 204 (docs/management-users.md); the user itself sends `{password}`. */
export const handler = managementHandler({ path: UserPath, body: OtpBody, responses: NO_CONTENT }, async (req) => {
  await removeUserOtp(userDeps(req.runtime), req.access, req.path.user_id, req.body);
  return noContent();
});
