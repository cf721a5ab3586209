import * as v from 'valibot';
import { hashPassword, verifyPassword } from '#shared/crypto/password-hash.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { httpHandler } from '#shared/http/table-handler.ts';
import { userManagementScopes } from '#shared/management/held-scopes.ts';
import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { loginFailuresRepository } from '#shared/store/users/login-failures-repository.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { showTicketPage, submitTicketPage, type TicketPageDeps } from '#shared/users/ticket-page.ts';
import { oauthDeps } from '#shared/wiring/token-path/token-path-records.ts';
import { forgetUser } from '#shared/wiring/token-path/user-token-records.ts';

/** The forms' fields; anything else a browser or a robot adds is ignored (a page, not an API). */
export const TicketFormBody = v.optional(
  v.looseObject({
    csrf_token: v.optional(v.unknown()),
    password: v.optional(v.unknown()),
    code: v.optional(v.unknown()),
    enrolment: v.optional(v.unknown()),
  }),
  {},
);
/** The ticket is opaque here: a value we never issued is an unknown ticket (the 404 page), not a 400. */
export const TicketPath = v.looseObject({ ticket: v.optional(v.string(), '') });

/** GET, POST /tickets/{ticket}: the hosted ticket page (docs/users.md "The ticket page"). */
export const handler = httpHandler(
  {
    page: HOSTED_PAGE,
    body: TicketFormBody,
    path: TicketPath,
    responses: { 200: html(), 303: redirect('To the ticket’s `result_url` once used') },
  },
  async (req) => {
    const { runtime } = req;
    const { config, db, now, serviceSecret, secretBox } = runtime;
    const deps: TicketPageDeps = {
      tickets: ticketsRepository(db, config.tableName, now),
      users: usersRepository(db, config.tableName, now),
      csrfKey: () => serviceSecret('hosted-pages'),
      hashPassword: (password: string) => hashPassword(password),
      verifyPassword,
      loginFailures: loginFailuresRepository(db, config.tableName, now, config.login),
      otp: otpRepository(db, config.tableName, now, secretBox, { maxFailures: config.login.otpMaxFailures }),
      secretBox,
      issuer: config.issuer,
      managementScopesOf: (user) => userManagementScopes(user, oauthDeps(runtime)),
      forget: (userId: string) => forgetUser(runtime, userId),
      now,
    };
    const { ticket } = req.path;
    return req.route.method === 'GET' ? showTicketPage(ticket, deps) : submitTicketPage(ticket, req.body, deps);
  },
);
