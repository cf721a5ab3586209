import { html, type SafeHtml } from '../../html/html.ts';
import type { PageScript } from '../../html/page.ts';
import { MAX_PASSKEYS_PER_USER, type PasskeyRecord } from '../../records/passkey-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { type CeremonyBinding, registrationOptions } from '../passkeys/ceremony.ts';
import { passkeyForm } from '../passkeys/passkey-form.ts';
import { PASSKEY_SCRIPT } from '../passkeys/passkey-script.ts';
import { type AccountContext, isRecentSignIn } from './account-context.ts';
import type { AccountDeps } from './account-deps.ts';

/**
 * A registration on the account page is bound to the session, the browser and the user
 * (passkeys/ceremony.ts): a challenge shown to one session or browser registers nothing in another.
 */
export const accountRegisterBinding = (ctx: AccountContext, userId: string): CeremonyBinding & { userId: string } => ({
  purpose: 'account-register',
  subject: ctx.session.id,
  browser: ctx.binding.value,
  userId,
});

/** The name the authenticator shows for the account (WebAuthn §5.4.3 `user.name`). */
const accountName = (user: UserRecord) => user.username ?? user.email ?? user.phone_number ?? user.id;

/**
 * The "Add a passkey" control: nothing under policy `off` or at the cap; a plain form (no script:
 * it works without JavaScript) when the sign-in is not recent, which sends the browser through
 * the sign-in again; else the ceremony's form and the page script that runs it.
 */
export async function addPasskeyControl(
  ctx: AccountContext,
  user: UserRecord,
  existing: readonly PasskeyRecord[],
  csrfToken: string,
  deps: AccountDeps,
): Promise<{ markup: SafeHtml | ''; script?: PageScript }> {
  if (deps.passkeyPolicy === 'off') return { markup: '' };
  if (existing.length >= MAX_PASSKEYS_PER_USER) {
    return { markup: html`<p>Your account holds the most passkeys it may (${MAX_PASSKEYS_PER_USER}): remove one to add another.</p>` };
  }
  if (!isRecentSignIn(ctx.session, deps.now())) {
    return {
      markup: html`<form method="post">
<input type="hidden" name="csrf_token" value="${csrfToken}">
<input type="hidden" name="action" value="add-passkey">
<button type="submit">Add a passkey</button>
</form>`,
    };
  }
  const ceremony = await registrationOptions(
    { user: { id: user.id, name: accountName(user) }, existing, binding: accountRegisterBinding(ctx, user.id) },
    deps,
  );
  const form = passkeyForm({
    mode: 'create',
    options: ceremony.options,
    state: ceremony.state,
    csrfToken,
    label: 'Add a passkey',
    fields: [['action', 'add-passkey']],
  });
  // The ceremony is the one part of the page that needs JavaScript (WebAuthn is a script API).
  return {
    markup: html`${form}
<noscript><p>Adding a passkey needs JavaScript.</p></noscript>`,
    script: PASSKEY_SCRIPT,
  };
}
