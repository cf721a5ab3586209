import { list } from '#shared/http/response-spec.ts';
import { consentEntity, consentListQuery, listConsents } from '#shared/management/consents/consents.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { consentDeps } from '#shared/wiring/users.ts';

/** GET /identity/v1/users/{user_id}/grants (docs/contract.md §6; docs/browser-flows.md "User Grants"). */
export const handler = managementHandler(
  { path: UserPath, query: consentListQuery, responses: { 200: list(consentEntity) } },
  async (req) => listResponse(consentEntity, await listConsents(consentDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
