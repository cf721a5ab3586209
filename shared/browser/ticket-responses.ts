import { errorPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { TicketRecord, TicketState } from '../store/sessions/tickets-repository.ts';

/** The CSRF purpose of the ticket page's forms: a token of another page never passes here. */
export const TICKET_CSRF_PURPOSE = 'ticket';

/**
 * What a ticket that cannot be used shows: an HTML page, never a redirect to its `result_url`;
 * 404 for a ticket we do not know, 400 for one that was used or has expired. The messages say
 * what happened and what to do, nothing about the account.
 */
export function refusal(state: Exclude<TicketState['state'], 'valid'>): HttpResponse {
  switch (state) {
    case 'used':
      return errorPage(400, 'Link already used', 'This link has already been used. Each link works once.');
    case 'expired':
      return errorPage(400, 'Link expired', 'This link has expired. Ask for a new one.');
    default:
      return errorPage(404, 'Link not valid', 'This link is not valid. Check that you copied all of it, or ask for a new one.');
  }
}

/** The ticket's user is gone, or in another tenant now. */
export const accountGone = (): HttpResponse =>
  errorPage(400, 'Link no longer valid', 'The account this link was made for no longer exists.');

/** The user now holds more than the ticket's maker did (ticket-takeover.ts): nothing changes. */
export const noLongerUsable = (): HttpResponse =>
  errorPage(400, 'Link no longer valid', 'This link can no longer be used. Ask for a new one.');

/** The origin a successful form may be redirected to: CSP3 `form-action` governs that redirect too. */
export const redirectOrigins = (ticket: TicketRecord): string[] => (ticket.result_url ? [new URL(ticket.result_url).origin] : []);

/** After a success: a 303 to the ticket's `result_url` when it has one. */
export const done = (ticket: TicketRecord): HttpResponse | undefined =>
  ticket.result_url ? { statusCode: 303, headers: { Location: ticket.result_url, 'Cache-Control': 'no-store' }, body: '' } : undefined;
