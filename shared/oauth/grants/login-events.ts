import type { EventLog, FoldedEvent } from '../../ports/event-log.ts';
import { type EventOrigin, type NewEvent, newEvent } from '../../records/event-record.ts';

// The security events of a sign-in (docs/events.md "Recording"): a success's are folded into the
// write that records the login; a failure's are one separate write (`EventLog.record`).

/** How the user signed in: `details.method` of `login.succeeded` and `login.failed`. */
export type LoginMethod = 'password' | 'passkey' | 'federated' | 'password_grant' | 'otp_grant';

/** The second factor of a login: `details.method` of `mfa.succeeded` and `mfa.failed`. */
export type SecondFactor = 'otp' | 'passkey';

/**
 * Why an attempt failed, as `reason`. `unknown_user` and `wrong_password` read the same to the
 * caller (one answer, docs/users.md "Brute force"); the log tells them apart, as only holders of
 * `read:events` read it and they can list the tenant's users anyway.
 */
export type FailureReason = 'wrong_password' | 'wrong_otp' | 'wrong_passkey' | 'passkey_not_found' | 'unknown_user' | 'blocked' | 'locked';

/** What every event of one sign-in attempt carries. */
export interface LoginEventContext {
  /** The client the login is for (the grant's client, the interaction's client). */
  clientId: string;
  origin: EventOrigin;
  method: LoginMethod;
  /** The attempt is the second step of a hosted login (the password passed): a wrong secret is `mfa.failed`. */
  secondFactor?: SecondFactor | undefined;
}

/** A sign-in that succeeded: what its events say besides the context. */
export interface SignInOutcome {
  tenantId: string;
  userId: string;
  /** RFC 8176 methods the session or tokens carry. */
  amr: readonly string[];
  /** The count this login clears had locked the user (its lockout ran out): `lockout.lifted`. */
  liftsLockout?: boolean | undefined;
  /** A second factor was checked and passed in this login: `mfa.succeeded`. */
  mfa?: SecondFactor | undefined;
}

/** The events of a successful sign-in, folded (no I/O) for the write that records the login. */
export function signInEvents(events: EventLog, context: LoginEventContext, outcome: SignInOutcome, at: Date): FoldedEvent[] {
  const fields = { tenant_id: outcome.tenantId, client_id: context.clientId, user_id: outcome.userId };
  const all: NewEvent[] = [
    ...(outcome.liftsLockout ? [newEvent('lockout.lifted', at, context.origin, fields)] : []),
    ...(outcome.mfa ? [newEvent('mfa.succeeded', at, context.origin, { ...fields, details: { method: outcome.mfa } })] : []),
    newEvent('login.succeeded', at, context.origin, { ...fields, details: { method: context.method, amr: [...outcome.amr] } }),
  ];
  return all.map((e) => events.fold(e));
}

/** A failed attempt: what its events say besides the context. */
export interface LoginFailure {
  tenantId: string;
  /** Only a user the login named: never the login as typed (people type passwords there). */
  userId?: string | undefined;
  reason: FailureReason;
  /** A wrong secret of a second factor (the first factor passed): `mfa.failed`. */
  secondFactor?: SecondFactor | undefined;
  /** This failure made the count reach the limit: `lockout.started` too. */
  startsLockout?: boolean | undefined;
}

/**
 * Records a failed attempt: `login.failed` (or `mfa.failed`), and `lockout.started` when it locked
 * the user. Each is one separate write that never throws: the person gets the answer they would
 * have got anyway.
 */
export async function recordFailure(events: EventLog, context: LoginEventContext, failure: LoginFailure, at: Date): Promise<void> {
  const fields = { tenant_id: failure.tenantId, client_id: context.clientId, ...(failure.userId ? { user_id: failure.userId } : {}) };
  const failed = failure.secondFactor
    ? newEvent('mfa.failed', at, context.origin, { ...fields, reason: failure.reason, details: { method: failure.secondFactor } })
    : newEvent('login.failed', at, context.origin, { ...fields, reason: failure.reason, details: { method: context.method } });
  await Promise.all([
    events.record(failed),
    failure.startsLockout && failure.userId ? events.record(newEvent('lockout.started', at, context.origin, fields)) : undefined,
  ]);
}
