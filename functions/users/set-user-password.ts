import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { setUserPassword } from '#shared/management/users/set-user-password.ts';
import { SetPasswordBody, UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** PUT /identity/v1/users/{user_id}/password: 204 (docs/contract.md §6, §7.6: `update:users`, or the user with `old_password`). */
export const handler = managementHandler({ path: UserPath, body: SetPasswordBody, responses: NO_CONTENT }, async (req) => {
  await setUserPassword(userDeps(req.runtime), req.access, req.path.user_id, req.body);
  return noContent();
});
