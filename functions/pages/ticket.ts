import { TicketFormBody, TicketPath } from '#shared/browser/page-forms.ts';
import { showTicketPage, submitTicketPage } from '#shared/browser/ticket-page.ts';
import { HOSTED_PAGE } from '#shared/html/hosted-page.ts';
import { html, redirect } from '#shared/http/response-spec.ts';
import { eventOrigin } from '#shared/records/event-record.ts';
import { httpHandler } from '#shared/wiring/http-handler.ts';
import { ticketPageDeps } from '#shared/wiring/pages.ts';

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
    if (req.route.method === 'GET') return showTicketPage(ticket, deps);
    return submitTicketPage(ticket, req.body, deps, eventOrigin(req.requestId, req.sourceIp, req.headers['user-agent']));
  },
);
