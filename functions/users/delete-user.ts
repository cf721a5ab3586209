import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteUser } from '#shared/management/users/delete-user.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userDeps } from '#shared/wiring/users.ts';

/** DELETE /identity/v1/users/{user_id}: 204 (docs/contract.md §6); cascade in docs/management-users.md. */
export const handler = managementHandler({ path: UserPath, responses: NO_CONTENT }, async (req) => {
  await deleteUser(userDeps(req.runtime), req.access, req.path.user_id);
  return noContent();
});
