import { jsonResponse } from '#shared/http/response.ts';
import { record } from '#shared/http/response-spec.ts';
import { usersCollection } from '#shared/lists/index.ts';
import { rejectDuplicateParams } from '#shared/oauth/reject-duplicate-params.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { RegisterBody } from '#shared/users/register-body.ts';
import { registerUser } from '#shared/users/register-user.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { registerDeps } from '#shared/wiring/users.ts';

/** POST /identity/v1/users/register (docs/contract.md §6, §7.5, §7.6): 201 with the new, unverified User. */
export const handler = httpHandler({ body: RegisterBody, responses: { 201: record(usersCollection) } }, async (req) => {
  rejectDuplicateParams(req.body, req.rawBody, req.headers['content-type']);
  const origin = eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']);
  const user = await registerUser(req.headers, req.body, registerDeps(req.runtime), origin);
  return jsonResponse(201, user);
});
