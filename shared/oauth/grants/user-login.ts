import { passwordHashPrefix } from '../../crypto/password-hash.ts';
import { oauthError } from '../../errors.ts';
import type { ServiceMetrics } from '../../observability/service-metrics.ts';
import type { EventLog } from '../../ports/event-log.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';
import type { DpopBinding } from '../dpop/token-dpop.ts';
import type { LoginStores, OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { type FailureReason, type LoginEventContext, recordFailure, type SecondFactor, signInEvents } from './login-events.ts';

/**
 * Plan decision 10: wrong secret, unknown user, blocked user: one answer, so none of them tells
 * an attacker anything the others do not.
 */
export const invalidCredentials = () => oauthError(400, 'invalid_grant', 'The credentials are not valid.');

/** Earlier than any `tokens_revoked_at`: a user that never had one. */
const EPOCH = new Date(0).toISOString();

/** `LoginsFailed` by `reason` (shared/observability/service-metrics.ts). */
const LOCKED = ['reason', 'locked'] as const;
const INVALID_CREDENTIALS = ['reason', 'invalid_credentials'] as const;

/** How a grant checks the secret of a user it found (or of none: the same work, then false). */
export interface SecretCheck {
  /**
   * Starts the check from what the login's marker says, before the user is read: a password's
   * hash runs alongside the write that counts the attempt and reads the user.
   */
  start(subject: LoginSubject): StartedCheck;
  /** A fresh hash to store after a success (password-hash.ts `needsRehash`), if one is due. */
  rehash?(user: UserRecord): Promise<{ oldHash: string; newHash: string } | undefined>;
  /** RFC 8176 what a successful check proved, for the ID token's `amr` (filled in by `verify`). */
  readonly amr?: AuthMethod[];
  /**
   * Why `verify` refused the user it was given (found, not blocked), for the failure's event;
   * `secondFactor`: the first factor was right, this second one not (`mfa.failed`). Without it: a
   * wrong password.
   */
  refusal?(): { reason: FailureReason; secondFactor?: SecondFactor | undefined };
  /** The second factor `verify` checked and accepted, if any: `mfa.succeeded` (filled in by `verify`). */
  passedSecondFactor?(): SecondFactor | undefined;
}

export interface StartedCheck {
  /** Whether the secret is the user's (for no user: the same work, then false). */
  verify(user: UserRecord | undefined): Promise<boolean>;
  /** Settles (never rejects) when the work started is done: a refused attempt waits for it too. */
  readonly settled: Promise<unknown>;
}

/** Who a login names in a tenant: its user, undefined for an unknown login. */
export interface LoginSubject {
  tenantId: string;
  userId?: string | undefined;
  /** The login as sent: what counts the attempts when it names no user (login-failures-repository.ts). */
  login?: string;
  /** Present when the user was found by its login marker: what the marker says (OAuthDeps `findLogin`). */
  marker?: { passwordPrefix: string | undefined };
}

/** The login's subject: the user its marker names in the tenant, with what the marker says. */
export async function findLoginSubject(tenantId: string, login: string, deps: Pick<OAuthDeps, 'findLogin'>): Promise<LoginSubject> {
  const found = await deps.findLogin(tenantId, login);
  return { tenantId, userId: found?.userId, login, marker: { passwordPrefix: found?.passwordPrefix } };
}

/**
 * The login of the password and otp grants (docs/contract.md §5.1, §7.3), for the user whose email,
 * username or phone number is `login` in the client's tenant:
 * 1. find the user's id (one marker read, the same whether or not the login exists);
 * 2. count the attempt BEFORE the secret is checked (login-failures-repository.ts): a login with
 *    `lockoutFailures` counted attempts gets 429 `too_many_requests` with `Retry-After`, right
 *    secret or not. An unknown login is counted and refused the same way, by its normalised
 *    identifier, so no answer tells whether it names a user. The counting write returns the
 *    user: the login's consistent read (a block or a new password is seen at once);
 * 3. check the secret (for an unknown user too, against a dummy: equal time). A password's hash
 *    starts with step 2, from the salt and parameters the marker keeps (user-markers.ts
 *    `loginMarkerAttributes`), and is compared with the hash step 2 returns: three stages one
 *    after the other (marker read, count ∥ hash, login write ∥ tokens) instead of four;
 * 4. wrong secret, unknown or blocked user: `invalid_grant`, one message. The counted attempt
 *    stays counted;
 * 5. success: one write records the login on the user and clears the count (with `rehash` when
 *    the grant asks for it), while the user-token core issues the tokens.
 */
export async function logUserIn(
  client: OAuthClient,
  login: string,
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined },
  check: SecretCheck,
  deps: OAuthDeps,
  context: Pick<LoginEventContext, 'method' | 'origin'>,
  dpop?: DpopBinding,
): Promise<TokenResponse> {
  const events: LoginEventContext = { ...context, clientId: client.id };
  const subject = await findLoginSubject(client.tenant_id, login, deps);
  const { user, liftsLockout } = await checkUserSecret(subject, check, deps, events);
  const at = deps.now();
  const [tokens] = await Promise.all([
    // Only the token parameters go on: the secret stays here.
    issueUserTokens(
      {
        client,
        user,
        request: { scope: request.scope, audience: request.audience, resource: request.resource },
        authTime: Math.floor(at.getTime() / 1000),
        amr: check.amr,
        // The secret was checked against the user as the counting write read it (consistent): a
        // revocation newer than the one it saw (a password change meanwhile) refuses the refresh
        // token's write. No clock is compared: none may be later than the one read.
        authorizedAt: user.tokens_revoked_at ?? EPOCH,
        dpop,
      },
      deps,
    ),
    (async () => {
      const rehash = await check.rehash?.(user);
      // The sign-in's events ride on the login's write (docs/events.md "Recording"): no call of their own.
      const outcome = { tenantId: user.tenant_id, userId: user.id, amr: check.amr ?? [], liftsLockout, mfa: check.passedSecondFactor?.() };
      await deps.login.recordLogin({ user, at, rehash, events: signInEvents(deps.events, events, outcome, at) });
    })(),
  ]);
  return tokens;
}

/**
 * Steps 2 to 4 above for a login already looked up: counts the attempt, checks the secret, and
 * returns the user, or throws 429 `too_many_requests` (with `Retry-After`) or
 * `invalidCredentials()`. The login is not recorded: the caller does that once the whole login
 * succeeded (the hosted login page's password step is followed by its OTP step, and only their
 * success clears the count), with its events; `liftsLockout` says whether that success ends a
 * lockout. A failure is recorded here, as its events' one separate write (login-events.ts).
 */
export async function checkUserSecret(
  subject: LoginSubject,
  check: SecretCheck,
  deps: { login: Pick<LoginStores, 'failures' | 'writeLoginHint'>; metrics: ServiceMetrics; events: EventLog; now: () => Date },
  context: LoginEventContext,
): Promise<{ user: UserRecord; liftsLockout: boolean; atLimit: boolean }> {
  const failed = (failure: {
    userId?: string | undefined;
    reason: FailureReason;
    secondFactor?: SecondFactor | undefined;
    startsLockout?: boolean;
  }) => recordFailure(deps.events, context, { tenantId: subject.tenantId, ...failure }, deps.now());
  const counted = deps.login.failures.admit(subject.userId ?? { tenantId: subject.tenantId, login: subject.login ?? '' });
  counted.catch(() => {}); // awaited below; handled now so the wait for the send is not an unhandled rejection
  // The counting write is on its way before the hash starts: on a busy core the hash's thread
  // would take the CPU before the request is even sent (measured: 25 ms late on one core).
  await new Promise(setImmediate);
  const started = check.start(subject);
  const admission = await counted;
  if (!admission.admitted) {
    // One hash at a time per container, even for refused attempts (a refusal answers once it is done).
    // A login that names no user is refused without a user id (never the login as typed); so is
    // an id of another tenant (a passkey's userHandle is any id the browser sends).
    const userId = admission.tenantId === subject.tenantId ? subject.userId : undefined;
    await Promise.all([started.settled, failed({ userId, reason: 'locked' })]);
    deps.metrics.count('LoginsFailed', LOCKED);
    throw oauthError(429, 'too_many_requests', 'Too many failed attempts for this user; retry later.', {
      headers: { 'Retry-After': String(admission.retryAfterSeconds) },
    });
  }
  // Login markers are per tenant, so the user is the tenant's; checked anyway: another tenant's
  // user is nobody here.
  const user = admission.user?.tenant_id === subject.tenantId ? admission.user : undefined;
  // The marker read held another prefix than the user's hash has (a marker from before prefixes,
  // a lost hint write): it gets the right one, alongside the check, success or not.
  const stale = subject.marker && user && passwordHashPrefix(user.password_hash) !== subject.marker.passwordPrefix;
  const [ok] = await Promise.all([started.verify(user), stale ? deps.login.writeLoginHint(user, user.password_hash) : undefined]);
  if (!user || !ok || user.blocked) {
    deps.metrics.count('LoginsFailed', INVALID_CREDENTIALS);
    await failed(
      !user
        ? { reason: 'unknown_user' }
        : user.blocked
          ? { userId: user.id, reason: 'blocked' }
          : {
              userId: user.id,
              startsLockout: admission.locksIfFails,
              ...(check.refusal?.() ?? { reason: 'wrong_password' }),
              ...(context.secondFactor ? { secondFactor: context.secondFactor } : {}),
            },
    );
    throw invalidCredentials();
  }
  return { user, liftsLockout: admission.liftsLockout, atLimit: admission.locksIfFails };
}
