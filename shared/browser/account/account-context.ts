import type { EventOrigin } from '../../records/event-record.ts';
import type { SessionRecord } from '../../store/sessions/sessions-repository.ts';

/** What the page and each action serve: the browser's live session and its bindings. */
export interface AccountContext {
  session: SessionRecord;
  /** The request's session cookie value. */
  cookie: string;
  /** The browser's CSRF binding (its `csrf` cookie; `setCookie` when the page must set one). */
  binding: { value: string; setCookie?: string };
  /** Where the request came from (docs/events.md). */
  origin: EventOrigin;
}

/**
 * How long a sign-in counts as recent for adding or removing a passkey: 10 minutes, as Keycloak's
 * account console asks again for an older one (docs/passkeys.md "The account page").
 */
export const RECENT_SIGN_IN_SECONDS = 600;

export const isRecentSignIn = (session: SessionRecord, now: Date) =>
  Math.floor(now.getTime() / 1000) - session.auth_time <= RECENT_SIGN_IN_SECONDS;
