import { createHash } from 'node:crypto';
import { base32Decode, base32Encode, generateTotpSecret, isTotpCodeShape, matchTotpStep, otpauthUri } from '../crypto/totp.ts';
import { isAppError } from '../errors.ts';
import { csrfToken, isValidCsrfToken } from '../html/csrf.ts';
import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { SecretBox } from '../keys/key-store.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { EventOrigin } from '../records/event-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { TicketRecord, TicketsRepository } from '../store/sessions/tickets-repository.ts';
import type { OtpRepository } from '../store/users/otp-repository.ts';
import { type CurrentPasswordDeps, checkCurrentPassword } from '../users/current-password.ts';
import { qrSvg } from './qr-svg.ts';
import { ticketEvent } from './ticket-events.ts';
import { accountGone, done, redirectOrigins, refusal } from './ticket-responses.ts';

export interface OtpEnrollmentDeps extends CurrentPasswordDeps {
  tickets: Pick<TicketsRepository, 'stagePendingOtp' | 'redeem'>;
  otp: Pick<OtpRepository, 'enroll'>;
  /** Seals the secret kept on the ticket between the two steps. */
  secretBox: Pick<SecretBox, 'seal' | 'open'>;
  /** The `issuer` of the otpauth URI (the service's `{base_url}`). */
  issuer: string;
  /** Drops this container's cached copy of the user (its `otp_enrolled` changed). */
  forget: (userId: string) => void;
  now: () => Date;
  /** Security events (docs/events.md): the enrolment's rides on its own write. */
  events: EventLog;
}

/** What the enrolment's forms post. */
export interface EnrolmentForm {
  password?: unknown;
  code?: unknown;
  /** The code step's proof that its poster saw the secret (see `CONFIRM_PURPOSE`). */
  enrolment?: unknown;
}

/**
 * The code step's second token: an HMAC under the pages' key of the ticket and the digest of the
 * sealed secret kept on it, given only in the answer to a right password. Whoever holds the link
 * without the password (the ticket's maker) gets the page's `csrf_token` but never this one, so
 * cannot even try codes against a secret it never saw; a later password step (a new secret) voids it.
 */
const CONFIRM_PURPOSE = 'ticket-otp-confirm';
const confirmBinding = (value: string, sealed: string) => `${value}\u0000${createHash('sha256').update(sealed).digest('base64url')}`;

/** Refused shapes stop here: a code is six digits, spaces (as apps show it) aside. */
const MAX_INPUT = 1024;

/** A user without a password cannot prove who it is on this page. */
export const noPasswordPage = (): HttpResponse =>
  errorPage(
    400,
    'Set a password first',
    'Your account has no password yet. Set one first (ask for a password link), then open this link again.',
  );

/**
 * Step 1 (GET, and again after a refusal): the user's CURRENT password, before anything secret is
 * shown. The link alone must not be enough: its maker holds it too.
 */
export function enrolmentPasswordForm(ticket: TicketRecord, csrf: string, problem?: string): HttpResponse {
  return htmlPage({
    status: problem ? 400 : 200,
    title: 'Set up an authenticator app',
    formActions: redirectOrigins(ticket),
    body: html`${problem ? html`<p class="error" role="alert" id="password-error">${problem}</p>` : ''}
<p>To add an authenticator app to your account, first confirm your current password.</p>
<form method="post">
<input type="hidden" name="csrf_token" value="${csrf}">
<label for="password">Current password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${problem ? html` aria-describedby="password-error" autofocus` : ''}>
<button type="submit">Continue</button>
</form>`,
  });
}

/** A long URI as text that may wrap before each `?` and `&` (it has no spaces to wrap at). */
const wrappable = (uri: string) => uri.split(/(?=[?&])/).map((part, i) => (i ? html`<wbr>${part}` : part));

/** The base32 key in groups of four, as people copy it into an app. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * Step 2: the secret (QR code, key, otpauth URI) and the code field. Shown only in the answer to
 * a right password or to a code post carrying the step's token; never on a GET.
 */
function secretPage(
  ticket: TicketRecord,
  user: UserRecord,
  secret: string,
  forms: { csrf: string; step: string; issuer: string },
  problem?: string,
): HttpResponse {
  const account = user.email ?? user.username ?? user.phone_number ?? user.id;
  const uri = otpauthUri(base32Decode(secret)!, { issuer: forms.issuer, account });
  return htmlPage({
    status: problem ? 400 : 200,
    title: 'Scan the code with your app',
    formActions: redirectOrigins(ticket),
    body: html`${problem ? html`<p class="error" role="alert" id="code-error">${problem}</p>` : ''}
<p>Scan this QR code with your authenticator app, or enter the key by hand.</p>
${qrSvg(uri, 'QR code for your authenticator app')}
<p>Key: <code id="otp-secret">${grouped(secret)}</code></p>
<p><a href="${uri}">Open in an authenticator app on this device</a></p>
<p>Setup URI: <code id="otp-uri">${wrappable(uri)}</code></p>
<form method="post">
<input type="hidden" name="csrf_token" value="${forms.csrf}">
<input type="hidden" name="enrolment" value="${forms.step}">
<label for="code">Code from the app</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="16"${problem ? html` aria-describedby="code-error" autofocus` : ''}>
<button type="submit">Confirm</button>
</form>`,
  });
}

/**
 * A POST of an `otp_enrollment` ticket for `user`, already checked by the ticket page (CSRF,
 * ticket live, user still the ticket's, no takeover). Without `code`: the password step; with it:
 * the code step. `ticket` is the item as read for this request (with its pending secret).
 */
export async function submitEnrolment(
  value: string,
  ticket: TicketRecord,
  user: UserRecord,
  form: EnrolmentForm,
  key: Buffer,
  csrf: string,
  deps: OtpEnrollmentDeps,
  origin: EventOrigin = {},
): Promise<HttpResponse> {
  if (user.password_hash === undefined) return noPasswordPage();
  return form.code === undefined
    ? passwordStep(value, ticket, user, form.password, key, csrf, deps)
    : codeStep(value, ticket, user, form, key, csrf, deps, origin);
}

/**
 * The current password, counted like a login (the lockout, current-password.ts); right: a new
 * secret, sealed and kept on the ticket (replacing one a previous password step kept), then shown.
 */
async function passwordStep(
  value: string,
  ticket: TicketRecord,
  user: UserRecord,
  password: unknown,
  key: Buffer,
  csrf: string,
  deps: OtpEnrollmentDeps,
): Promise<HttpResponse> {
  if (typeof password !== 'string' || password.length === 0 || password.length > MAX_INPUT) {
    return enrolmentPasswordForm(ticket, csrf, 'Enter your current password.');
  }
  const checked = await checkCurrentPassword(deps, user, password);
  if (!checked.ok && checked.locked) {
    return errorPage(429, 'Too many attempts', 'Too many wrong passwords for this account. Try again later.', {
      'Retry-After': String(checked.locked.retryAfterSeconds),
    });
  }
  if (!checked.ok) return enrolmentPasswordForm(ticket, csrf, 'That is not your current password.');
  const secret = base32Encode(generateTotpSecret());
  const sealed = await deps.secretBox.seal(secret);
  const staged = await deps.tickets.stagePendingOtp(value, sealed);
  if (staged.state !== 'valid') return refusal(staged.state);
  return secretPage(ticket, user, secret, {
    csrf,
    step: csrfToken(key, CONFIRM_PURPOSE, confirmBinding(value, sealed)),
    issuer: deps.issuer,
  });
}

/**
 * The code: only for the secret this poster was shown (the step's token), checked with the TOTP
 * rules of the `otp` grant (RFC 6238, one step of drift). Right: the ticket is redeemed on condition
 * that it still keeps this secret (one write: of concurrent confirmations one wins), and the
 * authenticator enrolled with it, its code's step already used. Wrong: the same secret again.
 */
async function codeStep(
  value: string,
  ticket: TicketRecord,
  user: UserRecord,
  form: EnrolmentForm,
  key: Buffer,
  csrf: string,
  deps: OtpEnrollmentDeps,
  origin: EventOrigin,
): Promise<HttpResponse> {
  const sealed = ticket.pending_otp_sealed;
  const expired = () => enrolmentPasswordForm(ticket, csrf, 'This step has expired. Enter your current password again.');
  if (sealed === undefined || !isValidCsrfToken(key, CONFIRM_PURPOSE, confirmBinding(value, sealed), form.enrolment)) return expired();
  const secret = await deps.secretBox.open(sealed);
  const again = (problem: string) =>
    secretPage(ticket, user, secret, { csrf, step: form.enrolment as string, issuer: deps.issuer }, problem);
  const code = typeof form.code === 'string' && form.code.length <= MAX_INPUT ? form.code.replace(/\s+/g, '') : '';
  if (!isTotpCodeShape(code)) return again('Enter the 6-digit code your app shows.');
  const step = matchTotpStep(base32Decode(secret)!, code, deps.now());
  if (step === undefined) return again('That code is not right. Enter the code your app shows now, and check the time on your device.');

  const redeemed = await deps.tickets.redeem(value, 'otp_enrollment', { pendingOtpSealed: sealed });
  if (redeemed.state === 'superseded') return expired();
  if (redeemed.state !== 'valid') return refusal(redeemed.state);
  try {
    // One authenticator per user: this one replaces any other (and clears a disabled one).
    const enrolled = ticketEvent(user, deps, origin, 'authenticator.enrolled', {
      target: { type: 'authenticator', id: 'totp' },
      details: { kind: 'totp' },
    });
    await deps.otp.enroll(user.id, { secret, lastStep: step, enrolledBy: user.id }, [enrolled]);
  } catch (err) {
    if (isAppError(err) && err.status === 404) return accountGone(); // deleted since the read
    throw err;
  }
  deps.forget(user.id);
  return (
    done(ticket) ??
    htmlPage({
      title: 'Authenticator added',
      body: html`<p>Your authenticator app is set up. When you sign in, enter the code it shows.</p>`,
    })
  );
}
