import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { UserIdentityPath, unlinkUserIdentity } from '#shared/management/users/user-identities.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { userIdentityDeps } from '#shared/wiring/user-identities.ts';

/** DELETE /identity/v1/users/{user_id}/identities/{identity_id}: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: UserIdentityPath, responses: NO_CONTENT }, async (req) => {
  await unlinkUserIdentity(userIdentityDeps(req.runtime), req.access, req.path.user_id, req.path.identity_id);
  return noContent();
});
