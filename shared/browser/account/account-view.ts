import { html, type SafeHtml } from '../../html/html.ts';
import { htmlPage, type PageScript } from '../../html/page.ts';
import type { HttpResponse } from '../../http/response.ts';
import type { PasskeyRecord } from '../../records/passkey-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { ConsentRecord } from '../../store/sessions/consents-repository.ts';

/** A grant as the page shows it: the client's and the Resource's names looked up. */
export interface GrantView {
  grant: ConsentRecord;
  clientName: string;
  resourceName?: string;
}

export type AccountSection = 'passkeys' | 'password' | 'applications' | 'sessions';

export interface AccountView {
  user: UserRecord;
  passkeys: PasskeyRecord[];
  grants: GrantView[];
  csrfToken: string;
  /** The "Add a passkey" control (account-passkey-control.ts), and the script its ceremony needs. */
  addPasskey: SafeHtml | '';
  script?: PageScript;
  /** The confirmation of the last action (a fixed text, never request data). */
  notice?: string;
  /** A refused action's message, shown in its section. */
  error?: { section: AccountSection; message: string };
  status?: number;
  headers?: Record<string, string>;
}

/** A date people read: `29 Nov 2026`, in UTC (the page does not know the reader's zone without script). */
const day = (iso: string): SafeHtml =>
  html`<time datetime="${iso}">${new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}</time>`;

const errorIn = (view: AccountView, section: AccountSection) =>
  view.error?.section === section ? html`<p class="error" role="alert">${view.error.message}</p>` : '';

/** One small form per action: JavaScript is never needed (docs/passkeys.md "The account page"). */
const actionForm = (view: AccountView, action: string, button: string, hidden: SafeHtml | '' = '') => html`<form method="post">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="action" value="${action}">
${hidden}<button type="submit">${button}</button>
</form>`;

function passkeysSection(view: AccountView): SafeHtml {
  const items = view.passkeys.map(
    (p) => html`<li>
<strong>${p.name}</strong><br>
Added ${day(p.created_at)} · ${p.last_used_at ? html`last used ${day(p.last_used_at)}` : 'never used'}
${actionForm(view, 'remove-passkey', 'Remove', html`<input type="hidden" name="passkey" value="${p.id}">\n`)}
</li>\n`,
  );
  return html`<section aria-labelledby="passkeys">
<h2 id="passkeys">Passkeys</h2>
${errorIn(view, 'passkeys')}
${view.passkeys.length === 0 ? html`<p>You have no passkeys.</p>` : html`<ul>\n${items}</ul>`}
${view.addPasskey}
</section>`;
}

function passwordSection(view: AccountView): SafeHtml {
  if (view.user.password_hash === undefined) {
    return html`<section aria-labelledby="password">
<h2 id="password">Password</h2>
<p>Your account has no password: you sign in another way.</p>
</section>`;
  }
  return html`<section aria-labelledby="password">
<h2 id="password">Password</h2>
${errorIn(view, 'password')}
<form method="post">
<input type="hidden" name="csrf_token" value="${view.csrfToken}">
<input type="hidden" name="action" value="change-password">
<input type="text" name="username" autocomplete="username" value="${view.user.username ?? view.user.email ?? ''}" hidden>
<label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required maxlength="1024">
<label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
<label for="confirm_password">Confirm the new password</label>
<input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required minlength="8" maxlength="1024">
<button type="submit">Change password</button>
</form>
</section>`;
}

function applicationsSection(view: AccountView): SafeHtml {
  const items = view.grants.map(
    ({ grant, clientName, resourceName }) => html`<li>
<strong>${clientName}</strong>${resourceName ? html` (${resourceName})` : ''}<br>
${grant.scopes.length > 0 ? html`Access: ${grant.scopes.join(', ')}<br>` : ''}
Granted ${day(grant.created_at)}
${actionForm(view, 'withdraw-grant', 'Withdraw', html`<input type="hidden" name="grant" value="${grant.id}">\n`)}
</li>\n`,
  );
  return html`<section aria-labelledby="applications">
<h2 id="applications">Applications</h2>
${errorIn(view, 'applications')}
${view.grants.length === 0 ? html`<p>You have not given any application access.</p>` : html`<ul>\n${items}</ul>`}
</section>`;
}

/** The account page (docs/passkeys.md "The account page"): one section per thing a person manages. */
export function accountPage(view: AccountView): HttpResponse {
  const { user } = view;
  const who = user.name ?? user.username ?? user.email ?? user.phone_number;
  const contact = user.email && user.email !== who ? user.email : undefined;
  const page = htmlPage({
    status: view.status ?? 200,
    title: 'Your account',
    ...(view.script ? { script: view.script } : {}),
    body: html`<p>Signed in as <strong>${who}</strong>${contact ? html` (${contact})` : ''}</p>
${view.notice ? html`<p role="status"><strong>${view.notice}</strong></p>` : ''}
${passkeysSection(view)}
${passwordSection(view)}
${applicationsSection(view)}
<section aria-labelledby="sessions">
<h2 id="sessions">Sessions</h2>
<p>Sign out of this account in every browser, this one included.</p>
${actionForm(view, 'sign-out-everywhere', 'Sign out everywhere')}
</section>`,
  });
  return { ...page, headers: { ...view.headers, ...page.headers } };
}

/** After "Sign out everywhere": nothing of the account is shown any more. */
export const signedOutPage = (): HttpResponse =>
  htmlPage({
    title: 'Signed out everywhere',
    body: html`<p>You are signed out in every browser.</p>
<p><a href="/account">Sign in to your account again</a></p>`,
  });
