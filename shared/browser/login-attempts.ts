import { isAppError } from '../errors.ts';
import type { HttpResponse } from '../http/response.ts';
import { logger } from '../logger.ts';
import {
  type FailureReason,
  type LoginEventContext,
  type LoginMethod,
  recordFailure,
  type SecondFactor,
  signInEvents,
} from '../oauth/grants/login-events.ts';
import { checkUserSecret, type LoginSubject, type SecretCheck } from '../oauth/grants/user-login.ts';
import type { EventOrigin } from '../records/event-record.ts';
import type { PasskeyRecord } from '../records/passkey-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { AuthMethod } from '../store/sessions/sessions-repository.ts';
import type { Rehash } from '../store/users/user-login-writes.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { interactionGone, seeOther, withCookie } from './browser-responses.ts';
import { readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { type CeremonyBinding, type parseAssertion, verifySignIn } from './passkeys/ceremony.ts';

// The counted attempts of a hosted login (password, code, passkey) and its completion, shared by
// every step of the login page (login-page.ts, passkeys/passkey-steps.ts) and federated login.

/** The fields of the login forms (docs/contract.md §7.4: `username`, `password`, then `otp`; §7.8 `csrf_token`). */
export interface LoginForm {
  csrf_token?: unknown;
  username?: unknown;
  password?: unknown;
  otp?: unknown;
  /** The OTP step's proof that the password step passed: `{user id}.{expiry}`, bound by the step's CSRF token. */
  otp_state?: unknown;
  /** A passkey step (docs/passkeys.md): `sign-in`, `second-factor`, `register` or `skip`. */
  passkey?: unknown;
  /** The ceremony's `{nonce}.{expiry}` (passkeys/ceremony.ts). */
  state?: unknown;
  /** The credential's JSON the page script posts. */
  credential?: unknown;
  /**
   * The second-factor or add-a-passkey step's proof that the password step passed:
   * `{user id}.{expiry}` (second factor) or `{user id}.{expiry}.{pwd|otp}` (add a passkey: what was
   * used so far), bound by the step's CSRF token.
   */
  step_state?: unknown;
  /** `1` when the page script found a platform authenticator: then a passkey is offered after the password. */
  passkey_offer?: unknown;
}

export interface LoginRequest {
  interactionId: string;
  headers: Record<string, string | undefined>;
  /** A provider link of the login page (docs/federation.md "Federated login"): its `provider_name` and CSRF token. */
  connection?: { name: unknown; csrfToken: unknown };
  /** Where the request came from: the sign-in's security events carry it (docs/events.md). */
  origin?: EventOrigin;
}

/** What the events of a login page's attempt carry (login-events.ts). */
export const loginContext = (
  req: LoginRequest,
  interaction: InteractionRecord,
  method: LoginMethod,
  secondFactor?: SecondFactor,
): LoginEventContext => ({ clientId: interaction.client_id, origin: req.origin ?? {}, method, secondFactor });

/** How long the OTP step may follow the password step. */
export const OTP_STEP_SECONDS = 300;

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const nowSeconds = (deps: BrowserDeps) => Math.floor(deps.now().getTime() / 1000);

export const consentUrl = (deps: BrowserDeps, interactionId: string) =>
  `${deps.issuer}/consent?interaction=${encodeURIComponent(interactionId)}`;

export interface FormState {
  status: number;
  error?: string;
  headers?: Record<string, string>;
}

export const PASSKEY_FAILED = 'The passkey could not be used to sign in. Try again, or use your password.';
export const STEP_EXPIRED = 'This form has expired. Please sign in again.';

export type Refused = { refused: { error: string; headers?: Record<string, string> }; status: number; user?: undefined };
/**
 * `liftsLockout`: the login this attempt completes ends a lockout (`lockout.lifted`, login-events.ts);
 * `atLimit`: this attempt's count reached the limit, so another counted step would be refused.
 */
export type Attempt = { refused?: undefined; user: UserRecord; liftsLockout: boolean; atLimit: boolean } | Refused;
export type PasskeyAttempt = { refused?: undefined; user: UserRecord; amr: 'hwk' | 'swk' } | Refused;

/**
 * One counted attempt (user-login.ts `checkUserSecret`). Refusals become page messages: the
 * lockout is 429 with `Retry-After`; a wrong secret, an unknown user and a blocked user get one
 * wording, so the page tells an attacker nothing about which it was.
 */
export async function attempt(subject: LoginSubject, check: SecretCheck, deps: BrowserDeps, context: LoginEventContext): Promise<Attempt> {
  try {
    return await checkUserSecret(subject, check, { ...deps.login, events: deps.events }, context);
  } catch (err) {
    if (!isAppError(err) || (err.status !== 400 && err.status !== 429)) throw err;
    if (err.status === 400) return { status: 400, refused: { error: 'The username or password is not correct.' } };
    const retryAfter = err.headers?.['Retry-After'] ?? '900';
    const minutes = Math.max(1, Math.ceil(Number(retryAfter) / 60));
    return {
      status: 429,
      refused: {
        error: `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        headers: { 'Retry-After': retryAfter },
      },
    };
  }
}

/** How a hosted login succeeded: what its record and events say (login-events.ts). */
export interface SignIn {
  method: LoginMethod;
  liftsLockout?: boolean | undefined;
  /** The second factor checked in this login, if any: `mfa.succeeded`. */
  mfa?: SecondFactor | undefined;
  /** A fresh hash of the password, stored with the login. */
  rehash?: Rehash | undefined;
  /** A passkey's login, counter, last use and events were recorded in one write already (passkeyAttempt). */
  recorded?: true;
}

/**
 * The whole login succeeded: login recorded on the user (its count cleared) with the sign-in's
 * events (docs/events.md "Recording": in the same write), unless a passkey's transaction did so
 * already; a new session; the interaction told. Also the end of a federated login
 * (federated-login.ts), with `amr` `fed`.
 */
export async function completeLogin(
  req: LoginRequest,
  interaction: InteractionRecord,
  user: UserRecord,
  amr: AuthMethod[],
  deps: BrowserDeps,
  signIn: SignIn,
): Promise<HttpResponse> {
  const at = deps.now();
  const write = async () => {
    if (signIn.recorded) return;
    const outcome = { tenantId: user.tenant_id, userId: user.id, amr, liftsLockout: signIn.liftsLockout, mfa: signIn.mfa };
    const events = signInEvents(deps.events, loginContext(req, interaction, signIn.method), outcome, at);
    await deps.login.login.recordLogin({ user, at, rehash: signIn.rehash, events });
  };
  const previous = readCookie(req.headers, SESSION_COOKIE);
  const [{ value, session }] = await Promise.all([
    // One after the other: the login's write (a transaction, with its events) and the session's
    // (a transaction on the user's `live_sessions`) both write the user item, and two transactions
    // on one item at once may both be cancelled (TransactionConflict).
    write().then(() =>
      deps.sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime: Math.floor(at.getTime() / 1000), amr }),
    ),
    // The browser's earlier session (another login, or a cookie planted before this one) ends.
    previous ? deps.sessions.endSession(previous) : undefined,
  ]);
  const cookie = sessionCookie(value, deps.secureCookies);
  const recorded = await deps.interactions.recordLogin(interaction.id, {
    user_id: user.id,
    session_id: session.id,
    auth_time: session.auth_time,
    amr,
  });
  // Signed in, but the request expired meanwhile: keep the session, say so.
  if (!recorded) return withCookie(interactionGone(), cookie);
  return seeOther(consentUrl(deps, interaction.id), cookie);
}

const INVALID_CREDENTIALS = ['reason', 'invalid_credentials'] as const;

/**
 * One counted passkey attempt, through the lockout a password goes through (user-login.ts
 * `checkUserSecret`): the assertion is the secret. The credential must be one of the named user's
 * passkeys (a credential of user A with user B's userHandle is B's attempt, and fails). Then the
 * login, the counter and the last use are written in ONE transaction, on condition that the
 * passkey is unchanged since it was read: a removal or a racing sign-in meanwhile is a failure.
 */
export async function passkeyAttempt(
  subject: LoginSubject,
  binding: CeremonyBinding,
  credential: NonNullable<ReturnType<typeof parseAssertion>>,
  state: unknown,
  userVerification: 'required' | 'preferred',
  deps: BrowserDeps,
  events: { req: LoginRequest; interaction: InteractionRecord; secondFactor?: boolean },
): Promise<PasskeyAttempt> {
  let verified: { passkey: PasskeyRecord; counter: number; amr: 'hwk' | 'swk' } | undefined;
  let refusal: FailureReason = 'passkey_not_found';
  // Passwordless: the passkey is the login (`passkey`); as the second factor the login is the password's.
  const context = loginContext(
    events.req,
    events.interaction,
    events.secondFactor ? 'password' : 'passkey',
    events.secondFactor ? 'passkey' : undefined,
  );
  const check: SecretCheck = {
    refusal: () => ({ reason: refusal }),
    start: () => ({
      settled: Promise.resolve(),
      async verify(user) {
        const passkey = user ? await deps.passkeys.findByCredential(user.id, credential.id) : undefined;
        if (!passkey) return false;
        const result = await verifySignIn({ binding, state, credential, passkey, userVerification }, deps);
        if ('failure' in result) {
          if (result.failure === 'counter') counterRegressed(passkey, deps);
          refusal = 'wrong_passkey';
          return false;
        }
        verified = { passkey, counter: result.counter, amr: result.amr };
        return true;
      },
    }),
  };
  const outcome = await attempt(subject, check, deps, context);
  if (outcome.refused) return outcome;
  const { user, liftsLockout } = outcome;
  const at = deps.now();
  // The amr completeLogin gives the session (passkey-steps.ts): a verified passkey is two factors in one.
  const amr = verified && (events.secondFactor ? ['pwd', verified.amr, 'mfa'] : [verified.amr, 'mfa']);
  const folded =
    verified &&
    amr &&
    signInEvents(
      deps.events,
      { ...context, method: events.secondFactor ? 'password' : 'passkey' },
      { tenantId: user.tenant_id, userId: user.id, amr, liftsLockout, mfa: events.secondFactor ? 'passkey' : undefined },
      at,
    );
  const recorded =
    verified !== undefined &&
    (await deps.passkeys.recordLogin({ userId: user.id, at, passkey: verified.passkey, counter: verified.counter, events: folded }));
  if (!verified || !recorded) {
    deps.login.metrics.count('LoginsFailed', INVALID_CREDENTIALS);
    // The passkey was removed or used by a rival sign-in since it was read: nothing was written.
    await recordFailure(
      deps.events,
      context,
      { tenantId: user.tenant_id, userId: user.id, reason: 'wrong_passkey', secondFactor: context.secondFactor },
      at,
    );
    return { status: 400, refused: { error: PASSKEY_FAILED } };
  }
  return { user, amr: verified.amr };
}

/**
 * A verified assertion whose signature counter did not go up (WebAuthn §6.1.1): a cloned
 * authenticator. Refused by the caller; reported here (no key material, no credential id).
 */
function counterRegressed(passkey: PasskeyRecord, deps: BrowserDeps): void {
  logger.warn('passkey signature counter went backwards', { user_id: passkey.user_id, passkey_id: passkey.id });
  deps.login.metrics.count('PasskeyCounterRegressed');
}
