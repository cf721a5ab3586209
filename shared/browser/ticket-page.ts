import { isAppError } from '../errors.ts';
import { csrfToken, isValidCsrfToken } from '../html/csrf.ts';
import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { EventOrigin } from '../records/event-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { TicketRecord, TicketsRepository } from '../store/sessions/tickets-repository.ts';
import type { UsersRepository } from '../store/users/users-repository.ts';
import { passwordProblem } from '../users/password-rules.ts';
import { ticketStillCovers } from '../users/ticket-takeover.ts';
import {
  type EnrolmentForm,
  enrolmentPasswordForm,
  noPasswordPage,
  type OtpEnrollmentDeps,
  submitEnrolment,
} from './otp-enrollment-page.ts';
import { ticketEvent } from './ticket-events.ts';
import { accountGone, done, noLongerUsable, redirectOrigins, refusal, TICKET_CSRF_PURPOSE } from './ticket-responses.ts';

export interface TicketPageDeps extends OtpEnrollmentDeps {
  /** Security events (docs/events.md): a password change or an enrolment rides on its own write. */
  events: EventLog;
  tickets: Pick<TicketsRepository, 'find' | 'redeem' | 'stagePendingOtp'>;
  users: Pick<UsersRepository, 'get' | 'update' | 'setPasswordHash'>;
  /** The hosted pages' CSRF key (`serviceSecret('hosted-pages')`). */
  csrfKey: () => Promise<Buffer>;
  /** argon2id (password-hash.ts). */
  hashPassword: (password: string) => Promise<string>;
  /** The management scopes the user holds now (RBAC, through the 1 s caches): the no-takeover re-check. */
  managementScopesOf: (user: UserRecord) => Promise<ReadonlySet<string>>;
}

/** What the page's forms post; anything else is ignored. */
export interface TicketForm extends EnrolmentForm {
  csrf_token?: unknown;
}

/**
 * The user a credential ticket (password change, authenticator enrolment) acts on, or the page
 * that says why it cannot: the user is gone or in another tenant now, or holds a management scope
 * the ticket's maker did not hold (ticket-takeover.ts; the ticket stays as it is).
 */
async function credentialUser(ticket: TicketRecord, deps: TicketPageDeps): Promise<UserRecord | HttpResponse> {
  const user = await deps.users.get(ticket.user_id);
  if (!user || user.tenant_id !== ticket.tenant_id) return accountGone();
  if (!(await ticketStillCovers(ticket, user, deps.managementScopesOf))) return noLongerUsable();
  return user;
}

const isPage = (x: UserRecord | HttpResponse): x is HttpResponse => 'statusCode' in x;

/**
 * GET `/tickets/{ticket}`: shows what the ticket will do and a form to confirm it.
 * Reading the page changes nothing: mail link scanners and previews fetch links with GET, and
 * must not use up (or act on) the ticket; only the form's POST does. An enrolment shows the
 * password step only: nothing secret is on a page the link alone opens.
 */
export async function showTicketPage(value: string, deps: TicketPageDeps): Promise<HttpResponse> {
  const found = await deps.tickets.find(value);
  if (found.state !== 'valid') return refusal(found.state);
  const { ticket } = found;
  const token = csrfToken(await deps.csrfKey(), TICKET_CSRF_PURPOSE, value);
  if (ticket.kind !== 'email_verification') {
    const user = await credentialUser(ticket, deps);
    if (isPage(user)) return user;
    if (ticket.kind === 'password_change') return passwordForm(ticket, token);
    return user.password_hash === undefined ? noPasswordPage() : enrolmentPasswordForm(ticket, token);
  }
  return htmlPage({
    title: 'Verify your email address',
    formActions: redirectOrigins(ticket),
    body: html`<p>Confirm that <strong>${ticket.email ?? 'this address'}</strong> is your email address.</p>
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<button type="submit">Verify email address</button>
</form>`,
  });
}

/**
 * POST `/tickets/{ticket}`: checks the CSRF token first. A credential ticket then checks its user
 * (credentialUser) and goes to its own step (changePassword; otp-enrollment-page.ts). An email
 * verification redeems the ticket (one conditional write: of concurrent posts exactly one gets
 * through), then verifies the address, but only if the user is still in the ticket's tenant and
 * still has the address the ticket was sent to (an address changed since is not verified by a link
 * sent to the old one). Success: the ticket's `result_url` (303), else a success page.
 */
export async function submitTicketPage(
  value: string,
  form: TicketForm,
  deps: TicketPageDeps,
  origin: EventOrigin = {},
): Promise<HttpResponse> {
  const key = await deps.csrfKey();
  if (!isValidCsrfToken(key, TICKET_CSRF_PURPOSE, value, form.csrf_token)) {
    return errorPage(400, 'Form expired', 'This form could not be checked. Open the link from your email again and confirm there.');
  }
  const found = await deps.tickets.find(value);
  if (found.state !== 'valid') return refusal(found.state);
  if (found.ticket.kind !== 'email_verification') {
    const user = await credentialUser(found.ticket, deps);
    if (isPage(user)) return user;
    const token = csrfToken(key, TICKET_CSRF_PURPOSE, value);
    if (found.ticket.kind === 'password_change') return changePassword(value, found.ticket, user, form.password, token, deps, origin);
    return submitEnrolment(value, found.ticket, user, form, key, token, deps, origin);
  }
  const redeemed = await deps.tickets.redeem(value, 'email_verification');
  if (redeemed.state !== 'valid') return refusal(redeemed.state);
  const { ticket } = redeemed;
  const sameAddress = (user: UserRecord) =>
    user.tenant_id === ticket.tenant_id && user.email !== undefined && user.email.toLowerCase() === ticket.email?.toLowerCase();
  const gone = () => errorPage(400, 'Link no longer valid', 'This link is for an address the account no longer uses.');

  const user = await deps.users.get(ticket.user_id);
  if (!user || !sameAddress(user)) return gone();
  try {
    await deps.users.update(user.id, { email_verified: true }, user.id, {
      // Re-checked on the record the write is conditioned on: an email change racing this one wins.
      validate: (current) => {
        if (!sameAddress(current)) throw new AddressChanged();
      },
    });
  } catch (err) {
    // Changed or deleted between the read and the write.
    if (err instanceof AddressChanged || (isAppError(err) && err.status === 404)) return gone();
    throw err;
  }
  return (
    done(ticket) ??
    htmlPage({ title: 'Email address verified', body: html`<p>Thank you: <strong>${ticket.email}</strong> is verified.</p>` })
  );
}

/** The password-change form (docs/contract.md §7.4: the field is `password`); `problem` re-shows it after a refused password. */
function passwordForm(ticket: TicketRecord, token: string, problem?: string): HttpResponse {
  return htmlPage({
    status: problem ? 400 : 200,
    title: 'Choose a new password',
    formActions: redirectOrigins(ticket),
    body: html`${problem ? html`<p class="error" role="alert" id="password-error">${problem}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128"${problem ? html` aria-describedby="password-error" autofocus` : ''}>
<button type="submit">Set password</button>
</form>`,
  });
}

/**
 * A password-change ticket's POST: the new password is checked (docs/contract.md §7.2) BEFORE the ticket is
 * redeemed, so a refused one shows the form again and uses nothing up; then the one redemption,
 * then the new argon2id hash, which also sets `tokens_revoked_at`: every token issued before,
 * refresh tokens included, stops working (docs/contract.md §7.1).
 */
async function changePassword(
  value: string,
  ticket: TicketRecord,
  user: UserRecord,
  password: unknown,
  token: string,
  deps: TicketPageDeps,
  origin: EventOrigin,
): Promise<HttpResponse> {
  if (typeof password !== 'string' || password.length > 1024) return passwordForm(ticket, token, 'Enter a new password.');
  const problem = passwordProblem(password, { email: user.email, username: user.username });
  if (problem) return passwordForm(ticket, token, `The password ${problem}`);
  const redeemed = await deps.tickets.redeem(value, 'password_change');
  if (redeemed.state !== 'valid') return refusal(redeemed.state);
  try {
    await deps.users.setPasswordHash(user.id, await deps.hashPassword(password), deps.now(), {
      actor: user.id,
      events: [ticketEvent(user, deps, origin, 'password.changed')],
    });
  } catch (err) {
    if (isAppError(err) && err.status === 404) return accountGone(); // deleted since the read
    throw err;
  }
  deps.forget(user.id);
  return (
    done(ticket) ?? htmlPage({ title: 'Password changed', body: html`<p>Your password has been changed. You can now sign in with it.</p>` })
  );
}

class AddressChanged extends Error {}
