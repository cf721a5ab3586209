import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { ConsentPath, deleteConsent } from '#shared/management/consents/consents.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { consentDeps } from '#shared/wiring/users.ts';

/** DELETE /identity/v1/users/{user_id}/grants/{grant_id}: 204 (docs/contract.md §6; docs/browser-flows.md "User Grants"). */
export const handler = managementHandler({ path: ConsentPath, responses: NO_CONTENT }, async (req) => {
  await deleteConsent(consentDeps(req.runtime), req.access, req.path.user_id, req.path.grant_id);
  return noContent();
});
