import * as v from 'valibot';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { showTicketPage, submitTicketPage } from '#shared/users/ticket-page.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { ticketPageDeps } from '#shared/wiring/pages.ts';

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
    const deps = ticketPageDeps(req.runtime);
    const { ticket } = req.path;
    return req.route.method === 'GET' ? showTicketPage(ticket, deps) : submitTicketPage(ticket, req.body, deps);
  },
);
