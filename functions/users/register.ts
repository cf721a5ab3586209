import { emailSenderOf } from '#shared/email/email-sender-of.ts';
import { jsonResponse } from '#shared/http/response.ts';
import { record } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/http/table-handler.ts';
import { usersCollection } from '#shared/lists/index.ts';
import { rejectDuplicateParams } from '#shared/oauth/reject-duplicate-params.ts';
import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { RegisterBody } from '#shared/users/register-body.ts';
import { registerUser } from '#shared/users/register-user.ts';
import { oauthDeps } from '#shared/wiring/token-path/token-path-records.ts';

/** POST /identity/v1/users/register (docs/contract.md §6, §7.5, §7.6): 201 with the new, unverified User. */
export const handler = httpHandler({ body: RegisterBody, responses: { 201: record(usersCollection) } }, async (req) => {
  rejectDuplicateParams(req.body, req.rawBody, req.headers['content-type']);
  const { runtime } = req;
  const { config, db, now } = runtime;
  const user = await registerUser(req.headers, req.body, {
    oauth: oauthDeps(runtime),
    users: usersRepository(db, config.tableName, now),
    tickets: ticketsRepository(db, config.tableName, now),
    email: emailSenderOf(runtime),
    issuer: config.issuer,
  });
  return jsonResponse(201, user);
});
