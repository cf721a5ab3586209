import type { UserRecord } from '../records/user-record.ts';
import type { TicketRecord } from '../store/sessions/tickets-repository.ts';

/** The tickets whose page sets a credential of the user (a password, an authenticator). */
export const SETS_CREDENTIAL: ReadonlySet<TicketRecord['kind']> = new Set(['password_change', 'otp_enrollment']);

/**
 * No takeover, checked again when the ticket is used (docs/security.md "Tickets and
 * authenticators"): its maker had to hold every management scope the user held when it was made
 * (no-escalation.ts `assertMayActAs`), but a link lives up to 30 days, and a user promoted
 * meanwhile would hand its new scopes to whoever holds the link. So a ticket that sets a credential
 * is usable only while the user holds no management scope its maker did not hold then
 * (`creator_scopes`), unless the maker was the user itself. A ticket stored without them (made
 * before they were kept) counts as made by someone holding none: it works for a user holding no
 * management scope only. Email verification sets no credential and is not checked.
 *
 * `scopesOf` reads the user's management scopes through the token path's 1 s caches, as the check
 * at creation does; it is read only for the kinds that need it.
 */
export async function ticketStillCovers(
  ticket: TicketRecord,
  user: UserRecord,
  scopesOf: (user: UserRecord) => Promise<ReadonlySet<string>>,
): Promise<boolean> {
  if (!SETS_CREDENTIAL.has(ticket.kind)) return true;
  if (ticket.created_by !== undefined && ticket.created_by.toLowerCase() === user.id.toLowerCase()) return true;
  const held = new Set(ticket.creator_scopes ?? []);
  return [...(await scopesOf(user))].every((scope) => held.has(scope));
}
