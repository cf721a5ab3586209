import { jsonResponse, NO_STORE } from '#shared/http/response.ts';
import { json } from '#shared/http/response-spec.ts';
import { CreatedTicketSchema, CreateTicketBody, createTicket } from '#shared/management/tickets/create-ticket.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { ticketDeps } from '#shared/wiring/tickets.ts';

/** POST /identity/v1/tickets/email-verification (docs/contract.md §6): 201 {id, ticket, expires_at}; the ticket URL is a secret (no-store). */
export const handler = managementHandler({ body: CreateTicketBody, responses: { 201: json(CreatedTicketSchema) } }, async (req) =>
  jsonResponse(201, await createTicket('email_verification', ticketDeps(req.runtime), req.access, req.body), NO_STORE),
);
