/**
 * A security event (docs/events.md): one record of something that happened to a tenant's users,
 * clients or configuration, stored at `EVENTS#{tenant}` / `{occurred_at}#{id}` until its retention
 * ends, and streamed to the stage's EventBridge bus. Nothing here is ever a secret's or a password's
 * value: management events name the fields a write changed, never what they now hold.
 */

/** Every event type; the catalogue with one example of each is docs/events.md. */
export const EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'lockout.started',
  'lockout.lifted',
  'mfa.succeeded',
  'mfa.failed',
  'authenticator.enrolled',
  'authenticator.removed',
  'password.changed',
  'user.blocked',
  'user.unblocked',
  'user.deleted',
  'refresh_token.reused',
  'authorization_code.reused',
  'consent.granted',
  'consent.withdrawn',
  'device.approved',
  'device.denied',
  'token.exchanged',
  'management.created',
  'management.updated',
  'management.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where a request came from, as the gateway saw it: every event of a request carries it. */
export interface EventOrigin {
  /** The gateway's request id: the same id is on the request's log lines. */
  request_id?: string;
  source_ip?: string;
  /** The `User-Agent` header, cut to MAX_USER_AGENT characters. */
  user_agent?: string;
}

/** Who did it, when that is not the user the event is about (an administrator, a client). */
export interface EventActor {
  /** The caller's `sub`: a user id, or a client id for a client's own token. */
  sub: string;
  client_id?: string;
}

/** An event before the store gives it an id. */
export interface NewEvent extends EventOrigin {
  type: EventType;
  tenant_id: string;
  /** ISO 8601, milliseconds, UTC. */
  occurred_at: string;
  /** The client the flow ran for, or the caller's client for a management write. */
  client_id?: string;
  /** The user the event is about. */
  user_id?: string;
  actor?: EventActor;
  /** What was acted on: `{type: 'client', id}`, `{type: 'authenticator', id: 'totp'}`, ... */
  target?: { type: string; id: string };
  /** A management write's changed field names (top-level body members), never their values. */
  changed_fields?: string[];
  /** Why a failure happened, as a code (`wrong_password`, `unknown_user`, `locked`, ...). */
  reason?: string;
  /** A few non-secret facts of the event (`amr`, `method`, `route`, ...). */
  details?: Record<string, string | number | boolean | string[]>;
}

/** An event as stored and listed. */
export interface EventRecord extends NewEvent {
  /** A UUIDv7: time-ordered. */
  id: string;
}

export const MAX_USER_AGENT = 512;

/** The origin of a request from its gateway fields, bounded. */
export function eventOrigin(requestId: string | undefined, sourceIp: string | undefined, userAgent: string | undefined): EventOrigin {
  return {
    ...(requestId ? { request_id: requestId } : {}),
    ...(sourceIp && sourceIp !== 'unknown' ? { source_ip: sourceIp } : {}),
    ...(userAgent ? { user_agent: userAgent.slice(0, MAX_USER_AGENT) } : {}),
  };
}

/** An event of `type` happening now, with the request's origin and the event's own fields. */
export function newEvent(
  type: EventType,
  at: Date,
  origin: EventOrigin,
  fields: Omit<NewEvent, 'type' | 'occurred_at' | keyof EventOrigin>,
): NewEvent {
  return { type, occurred_at: at.toISOString(), ...origin, ...fields };
}
