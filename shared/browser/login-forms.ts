import { html, type SafeHtml } from '../html/html.ts';
import { htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { PasskeyRecord } from '../records/passkey-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { browserBinding, formToken, withCookie } from './browser-responses.ts';
import { type FormState, type LoginRequest, nowSeconds, OTP_STEP_SECONDS } from './login-attempts.ts';
import { type CeremonyBinding, registrationOptions, signInOptions } from './passkeys/ceremony.ts';
import { passkeyForm } from './passkeys/passkey-form.ts';
import { PASSKEY_SCRIPT } from './passkeys/passkey-script.ts';

// The login page's forms, each step's next to the others: the password form (with "Sign in with a
// passkey" and the provider links), the second factor (code and/or passkey) and "Add a passkey".

async function clientName(interaction: InteractionRecord, deps: BrowserDeps): Promise<string | undefined> {
  return (await deps.getClient(interaction.client_id))?.client_name;
}

export async function passwordForm(
  req: LoginRequest,
  interaction: InteractionRecord,
  deps: BrowserDeps,
  state: FormState & { username: string },
): Promise<HttpResponse> {
  const binding = browserBinding(req.headers, deps.secureCookies);
  const withPasskeys = deps.passkeyPolicy !== 'off';
  const [token, name, providers, passkey] = await Promise.all([
    formToken(deps.csrfKey, 'login', interaction.id, binding.value),
    clientName(interaction, deps),
    providerLinks(interaction, binding.value, deps),
    // Not again on a refusal: an authenticator that answers at once would loop.
    withPasskeys ? signInPasskeyForm(interaction, binding.value, deps, state.error === undefined) : undefined,
  ]);
  const page = htmlPage({
    status: state.status,
    title: 'Sign in',
    formActions: interaction.form_actions ?? [],
    ...(passkey ? { script: PASSKEY_SCRIPT } : {}),
    body: html`${name ? html`<p>to continue to <strong>${name}</strong></p>` : ''}
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
${
  passkey
    ? html`<input type="hidden" name="passkey_offer" value="" data-passkey-platform>
`
    : ''
}<label for="username">Username or email</label>
<input id="username" name="username" type="text" autocomplete="${passkey ? 'username webauthn' : 'username'}" autocapitalize="none" spellcheck="false" required maxlength="1024" value="${state.username}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
${passkey ?? ''}
${providers}`,
  });
  return withCookie({ ...page, headers: { ...state.headers, ...page.headers } }, binding.setCookie);
}

/**
 * The tenant's enabled identity providers, one link each, named by `provider_name` (docs/contract.md
 * §7.7); each carries its own token (followProviderLink). Plain links: no JavaScript needed.
 */
async function providerLinks(interaction: InteractionRecord, browser: string, deps: BrowserDeps) {
  const providers = deps.federation ? await deps.federation.providers.enabled(interaction.tenant_id) : [];
  if (providers.length === 0) return '';
  const links = await Promise.all(
    providers.map(async (p) => {
      const token = await formToken(deps.csrfKey, 'login-provider', interaction.id, browser, p.provider_name);
      const query = new URLSearchParams({ interaction: interaction.id, connection: p.provider_name, csrf_token: token });
      return html`<li><a href="${`${deps.issuer}/login?${query}`}">Sign in with ${p.provider_name}</a></li>\n`;
    }),
  );
  return html`<p>Or</p>
<ul class="providers">
${links}</ul>`;
}

/**
 * The second step after a correct password: the TOTP code form (a user with an authenticator,
 * unless `required` and the user has a passkey) and "Use a passkey" (a user with passkeys: its
 * credentials allowed, user verification preferred: the password was the first factor).
 * Without `offered`, the user came from the code step: TOTP, and its passkeys listed here.
 */
export async function secondFactorForm(
  interaction: InteractionRecord,
  userId: string,
  browser: string,
  deps: BrowserDeps,
  state: FormState,
  offered: { totp: boolean; passkeys: PasskeyRecord[] },
): Promise<HttpResponse> {
  const expiry = String(nowSeconds(deps) + OTP_STEP_SECONDS);
  const [otpToken, passkeyToken, ceremony] = await Promise.all([
    formToken(deps.csrfKey, 'login-otp', interaction.id, browser, userId, expiry),
    formToken(deps.csrfKey, 'login-second-factor', interaction.id, browser, userId, expiry),
    offered.passkeys.length > 0
      ? signInOptions(
          { binding: secondFactorBinding(interaction, browser, userId), allow: offered.passkeys, userVerification: 'preferred' },
          deps,
        )
      : undefined,
  ]);
  const passkey = ceremony
    ? passkeyForm({
        mode: 'get',
        options: ceremony.options,
        state: ceremony.state,
        csrfToken: passkeyToken,
        label: 'Use a passkey',
        fields: [
          ['passkey', 'second-factor'],
          ['step_state', `${userId}.${expiry}`],
        ],
      })
    : undefined;
  const page = htmlPage({
    status: state.status,
    title: offered.totp ? 'Enter your code' : 'Use a passkey',
    formActions: interaction.form_actions ?? [],
    ...(passkey ? { script: PASSKEY_SCRIPT } : {}),
    body: html`${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
${
  offered.totp
    ? html`<p>Open your authenticator app and enter the 6-digit code it shows.</p>
<form method="post">
<input type="hidden" name="csrf_token" value="${otpToken}">
<input type="hidden" name="otp_state" value="${`${userId}.${expiry}`}">
<label for="otp">Code</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
<button type="submit">Verify</button>
</form>
${
  passkey
    ? html`<p>Or</p>
`
    : ''
}`
    : html`<p>Confirm it is you with your passkey.</p>
`
}${passkey ?? ''}`,
  });
  return { ...page, headers: { ...state.headers, ...page.headers } };
}

export const secondFactorBinding = (interaction: InteractionRecord, browser: string, userId: string): CeremonyBinding => ({
  purpose: 'login-second-factor',
  subject: interaction.id,
  browser,
  userId,
});
export const registerBinding = (interaction: InteractionRecord, browser: string, userId: string) => ({
  purpose: 'login-register' as const,
  subject: interaction.id,
  browser,
  userId,
});

/**
 * "Sign in with a passkey" on the password page: a discoverable-credential ceremony (no
 * `allowCredentials`: the assertion's userHandle names the user), user verification required (the
 * passkey alone is the login), also offered in the username field's autofill (conditional mediation).
 */
export async function signInPasskeyForm(
  interaction: InteractionRecord,
  browser: string,
  deps: BrowserDeps,
  conditional: boolean,
): Promise<SafeHtml> {
  const [token, ceremony] = await Promise.all([
    formToken(deps.csrfKey, 'login-passkey', interaction.id, browser),
    signInOptions({ binding: { purpose: 'login', subject: interaction.id, browser }, userVerification: 'required' }, deps),
  ]);
  return passkeyForm({
    mode: 'get',
    options: ceremony.options,
    state: ceremony.state,
    csrfToken: token,
    label: 'Sign in with a passkey',
    fields: [['passkey', 'sign-in']],
    conditional,
  });
}

/**
 * "Add a passkey" after a password (and code) sign-in: the registration ceremony bound to the
 * user and the interaction; `optional` also offers "Not now", which completes the login as it
 * was; `required` does not (docs/passkeys.md "Policy").
 */
export async function addPasskeyForm(
  interaction: InteractionRecord,
  user: UserRecord,
  after: 'pwd' | 'otp',
  browser: string,
  deps: BrowserDeps,
  state: FormState,
): Promise<HttpResponse> {
  const expiry = String(nowSeconds(deps) + OTP_STEP_SECONDS);
  const stepState = `${user.id}.${expiry}.${after}`;
  const ceremony = await registrationOptions(
    {
      user: { id: user.id, name: user.email ?? user.username ?? user.id },
      existing: await deps.passkeys.list(user.id),
      binding: registerBinding(interaction, browser, user.id),
    },
    deps,
  );
  // Bound to the ceremony's state too: "Not now" uses that state up, so it is taken once.
  const token = await formToken(deps.csrfKey, 'login-register', interaction.id, browser, user.id, expiry, after, ceremony.state);
  const optional = deps.passkeyPolicy === 'optional';
  const page = htmlPage({
    status: state.status,
    title: 'Add a passkey',
    formActions: interaction.form_actions ?? [],
    script: PASSKEY_SCRIPT,
    body: html`${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<p>${
      optional
        ? 'Next time, sign in with your fingerprint, face or screen lock instead of your password.'
        : 'To continue, add a passkey: from now on your fingerprint, face or screen lock signs you in.'
    }</p>
${passkeyForm({
  mode: 'create',
  options: ceremony.options,
  state: ceremony.state,
  csrfToken: token,
  label: 'Add a passkey',
  fields: [
    ['passkey', 'register'],
    ['step_state', stepState],
  ],
})}
${
  optional
    ? html`<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<input type="hidden" name="passkey" value="skip">
<input type="hidden" name="step_state" value="${stepState}">
<input type="hidden" name="state" value="${ceremony.state}">
<button type="submit">Not now</button>
</form>`
    : ''
}`,
  });
  return { ...page, headers: { ...state.headers, ...page.headers } };
}
