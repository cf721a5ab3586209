import * as v from 'valibot';
import { badRequest } from '../../errors.ts';
import type { PrincipalReads } from '../../ports/token-path.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { TicketKind, TicketsRepository } from '../../store/sessions/tickets-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';
import { SETS_CREDENTIAL } from '../../users/ticket-takeover.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { fieldKit, integer, text, uuid } from '../kit/fields.ts';
import { assertMayActAs } from '../no-escalation.ts';

/** docs/contract.md §6 tickets: 5 days by default, 30 days at most. */
export const TICKET_TTL = { default: 432_000, max: 2_592_000 } as const;

const ticketFields = fieldKit('reject');

/** POST /tickets/password-change, /tickets/email-verification and /tickets/otp-enrollment; `result_url` is checked by the repository. */
export const CreateTicketBody = ticketFields.object({
  user_id: uuid,
  result_url: v.optional(text(2048)),
  ttl_sec: v.optional(integer(1, TICKET_TTL.max, 'seconds')),
  client_id: v.optional(uuid),
});
export type CreateTicketInput = v.InferOutput<typeof CreateTicketBody>;

export interface TicketDeps {
  tickets: Pick<TicketsRepository, 'create'>;
  users: Pick<UsersRepository, 'get'>;
  findClient: PrincipalReads['findClient'];
  /** `{base_url}`: a ticket's URL is `{base_url}/tickets/{value}`. */
  issuer: string;
  /** The user's management-API scopes (what a password-change ticket would hand over). */
  managementScopesOf: (user: UserRecord) => Promise<ReadonlySet<string>>;
}

/** 201 body (docs/contract.md §6): `ticket` is the page's URL, the only copy of the value. */
/** The 201 answer (docs/contract.md §6 tickets), for the OpenAPI document. */
export const CreatedTicketSchema = v.object({
  id: v.pipe(v.string(), v.uuid()),
  ticket: v.pipe(v.string(), v.url()),
  expires_at: v.pipe(v.string(), v.isoTimestamp()),
});

export interface CreatedTicket {
  id: string;
  ticket: string;
  expires_at: string;
}

/**
 * Creates a one-time ticket for a user the caller can see (another tenant's user is 404), for the
 * hosted page `/tickets/{ticket}` (shared/browser/ticket-page.ts): a password change,
 * an authenticator enrolment (the user gives its current password on the page, then confirms a
 * code: the secret is shown to the user only), or the verification of the user's current email
 * address (a user without one: 400). `client_id`, when given, must name a client the caller can
 * see; `result_url` is where the page sends the browser after a success (https, or http on
 * loopback; tickets-repository.ts). The ticket keeps its maker and the management scopes the maker
 * holds now: the page refuses a credential ticket whose user has come to hold more (docs/security.md
 * "Tickets and authenticators").
 */
export async function createTicket(
  kind: TicketKind,
  deps: TicketDeps,
  access: ManagementAccess,
  body: CreateTicketInput,
): Promise<CreatedTicket> {
  const user = await loadVisible(deps.users, access.ctx, body.user_id, 'User');
  // Its URL sets a credential of the user: the caller must hold what the user holds (no-escalation.ts).
  if (SETS_CREDENTIAL.has(kind)) await assertMayActAs(access.ctx, user.id, () => deps.managementScopesOf(user));
  if (body.client_id !== undefined) {
    await loadVisible({ get: deps.findClient }, access.ctx, body.client_id, 'Client');
  }
  if (kind === 'email_verification' && user.email === undefined) {
    throw badRequest('body.user_id: the user has no email address to verify.');
  }
  const { value, ticket } = await deps.tickets.create({
    kind,
    userId: user.id,
    tenantId: user.tenant_id,
    ttlSeconds: body.ttl_sec ?? TICKET_TTL.default,
    ...(kind === 'email_verification' ? { email: user.email } : {}),
    clientId: body.client_id,
    resultUrl: body.result_url,
    createdBy: access.ctx.actor,
    creatorScopes: [...access.ctx.scopes],
  });
  return { id: ticket.id!, ticket: `${deps.issuer}/tickets/${value}`, expires_at: ticket.expires_at };
}
