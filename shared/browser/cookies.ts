import { parse, serialize } from 'cookie';
import { SESSION_LIFETIME_SECONDS } from '../store/sessions/sessions-repository.ts';

/** The session cookie (docs/browser-flows.md "Sessions"): its value is 32 random bytes, stored only hashed. */
export const SESSION_COOKIE = 'session';
/**
 * The browser's CSRF cookie: random, set by the first page that shows a form before there is a
 * session (login, logout). The forms' `csrf_token` is an HMAC bound to it, so a form posted from
 * another site (which cannot read or set it) or with another browser's token is refused; that
 * also stops login CSRF (an attacker logging the victim into the attacker's account).
 */
export const CSRF_COOKIE = 'csrf';

/**
 * `Secure` except when the service itself runs on a loopback `http://` URL (docs/contract.md §7.4: local
 * development), where a browser would drop a Secure cookie.
 */
export function secureCookies(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
}

const base = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure });

/** The session cookie: HttpOnly, SameSite=Lax, Path=/, Secure (see above), Max-Age 24 h (no sliding). */
export const sessionCookie = (value: string, secure: boolean): string =>
  serialize(SESSION_COOKIE, value, { ...base(secure), maxAge: SESSION_LIFETIME_SECONDS });

/** Clears the session cookie (logout). */
export const clearedSessionCookie = (secure: boolean): string => serialize(SESSION_COOKIE, '', { ...base(secure), maxAge: 0 });

/** The CSRF cookie: lives as long as the browser session (no Max-Age). */
export const csrfCookie = (value: string, secure: boolean): string => serialize(CSRF_COOKIE, value, base(secure));

/** One cookie of the request (the first of that name), or undefined. */
export function readCookie(headers: Record<string, string | undefined>, name: string): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  const value = parse(header)[name];
  return value ? value : undefined;
}
