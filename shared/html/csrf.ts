import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the hosted pages (docs/contract.md §7.4, §7.8: a hidden `csrf_token` in every form).
 *
 * A page reached through a one-time secret in its URL (a ticket) uses a token bound to that
 * secret: HMAC-SHA256 under a service secret of `purpose` and the secret. Stateless (no cookie, no
 * stored session: the page works in any browser and across devices), and a form posted from
 * another site cannot carry it, since making it needs the service secret; whoever can read the
 * page already holds the ticket. Pages with a session (login, consent) bind the token
 * to the session instead, with the same two functions.
 */
export function csrfToken(key: Buffer, purpose: string, binding: string): string {
  return createHmac('sha256', key).update(`${purpose}\u0000${binding}`).digest('base64url');
}

/** Whether `presented` is the token of (`purpose`, `binding`); constant time in its content. */
export function isValidCsrfToken(key: Buffer, purpose: string, binding: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(csrfToken(key, purpose, binding));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
