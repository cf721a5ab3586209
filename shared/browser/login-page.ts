import { isTotpCodeShape } from '../crypto/totp.ts';
import { isAppError } from '../errors.ts';
import { html, type SafeHtml } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { logger } from '../logger.ts';
import { authenticatorOf, totpCheck } from '../oauth/grants/otp.ts';
import { passwordCheck } from '../oauth/grants/password.ts';
import { checkUserSecret, findLoginSubject, type LoginSubject, type SecretCheck } from '../oauth/grants/user-login.ts';
import { sessionMeetsAcr } from '../oauth/user-tokens/acr.ts';
import type { PasskeyRecord } from '../records/passkey-record.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { AuthMethod, SessionRecord } from '../store/sessions/sessions-repository.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { browserBinding, formToken, interactionGone, isFormToken, seeOther, withCookie } from './browser-responses.ts';
import { readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { FederationUnavailable, startFederatedLogin } from './federated-login.ts';
import {
  amrOf,
  type CeremonyBinding,
  type CeremonyFailure,
  parseAssertion,
  parseAttestation,
  registrationOptions,
  signInOptions,
  userIdOfHandle,
  useStateOnce,
  verifyRegistration,
  verifySignIn,
} from './passkeys/ceremony.ts';
import { passkeyForm } from './passkeys/passkey-form.ts';
import { PASSKEY_SCRIPT } from './passkeys/passkey-script.ts';

// One piece: the password and code steps of one login share the interaction, the CSRF token and
// the lockout attempt, and each step's form is rendered next to the step that checks it.

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
}

/** How long the OTP step may follow the password step. */
const OTP_STEP_SECONDS = 300;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const nowSeconds = (deps: BrowserDeps) => Math.floor(deps.now().getTime() / 1000);

/**
 * The browser's session may stand in for the form (OIDC Core §3.1.2.1): same tenant, no
 * `prompt=login`, not older than `max_age`, and its `amr` meets one of the `acr_values` asked
 * for, if any (acr.ts; docs/passkeys.md "amr and acr").
 */
function sessionServes(session: SessionRecord | undefined, interaction: InteractionRecord, nowS: number): session is SessionRecord {
  if (!session || session.tenant_id !== interaction.tenant_id || interaction.prompt.includes('login')) return false;
  if (!sessionMeetsAcr(interaction.acr_values, session.amr)) return false;
  return interaction.max_age === undefined || nowS - session.auth_time <= interaction.max_age;
}

const consentUrl = (deps: BrowserDeps, interactionId: string) => `${deps.issuer}/consent?interaction=${encodeURIComponent(interactionId)}`;

/**
 * GET `/login?interaction=` (docs/browser-flows.md "Login"): with a session that serves, records
 * the login from it on the interaction and goes on to consent without a page; otherwise shows the
 * form, `username` pre-filled from `login_hint`.
 */
export async function showLogin(req: LoginRequest, deps: BrowserDeps): Promise<HttpResponse> {
  const interaction = await deps.interactions.readInteraction(req.interactionId);
  if (!interaction) return interactionGone();
  if (req.connection) return followProviderLink(req, req.connection, interaction, deps);
  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (sessionServes(session, interaction, nowSeconds(deps))) {
    const recorded = await deps.interactions.recordLogin(interaction.id, {
      user_id: session.user_id,
      session_id: session.id,
      auth_time: session.auth_time,
      amr: session.amr,
    });
    if (!recorded) return interactionGone();
    return seeOther(consentUrl(deps, interaction.id));
  }
  return passwordForm(req, interaction, deps, { status: 200, username: interaction.login_hint ?? '' });
}

/**
 * POST `/login?interaction=`: the password step, then (for a user with an authenticator) the OTP
 * step; on success a NEW session (a cookie set before the login is never kept: session
 * fixation), the login recorded on the interaction, 303 to consent. The lockout of docs/contract.md §7.3
 * applies as at `/token`: every attempt is counted before it is checked, and the count starts
 * again only once the whole login (password and code) succeeded.
 */
export async function submitLogin(req: LoginRequest, form: LoginForm, deps: BrowserDeps): Promise<HttpResponse> {
  const interaction = await deps.interactions.readInteraction(req.interactionId);
  if (!interaction) return interactionGone();
  const binding = browserBinding(req.headers, deps.secureCookies);
  if (form.passkey !== undefined) return passkeyStep(req, interaction, form, binding, deps);
  if (form.otp_state !== undefined) return otpStep(req, interaction, form, binding.value, deps);

  const fresh = binding.setCookie !== undefined;
  if (fresh || !(await isFormToken(deps.csrfKey, form.csrf_token, 'login', interaction.id, binding.value))) {
    return passwordForm(req, interaction, deps, {
      status: 400,
      username: str(form.username),
      error: 'This form has expired. Please try again.',
    });
  }
  const username = str(form.username).trim();
  const password = str(form.password);
  if (!username || !password || username.length > 1024 || password.length > 1024) {
    return passwordForm(req, interaction, deps, { status: 400, username, error: 'Enter your username and your password.' });
  }
  const check = passwordCheck(password);
  const subject = await findLoginSubject(interaction.tenant_id, username, deps.login);
  const outcome = await attempt(subject, check, deps);
  if (outcome.refused) return passwordForm(req, interaction, deps, { status: outcome.status, username, ...outcome.refused });

  const { user } = outcome;
  const policy = deps.passkeyPolicy;
  const [totp, passkeys] = await Promise.all([authenticatorOf(user, deps.login), policy === 'off' ? [] : deps.passkeys.list(user.id)]);
  // A passkey is offered after the password where it can work (a platform authenticator, as the
  // page script found), and demanded by `required` (docs/passkeys.md "Policy").
  const addPasskey = policy === 'required' || (policy === 'optional' && form.passkey_offer === '1');
  // Any second factor, even a disabled TOTP authenticator, is always asked for: never a silent
  // downgrade to the password alone.
  if (totp || passkeys.length > 0 || addPasskey) {
    // The password is known only in this request, and a later step records the login: a due
    // rehash is stored now (user-login-writes.ts `userRehashWrite`), or it would never be.
    const rehash = await check.rehash?.(user);
    if (rehash) await deps.storeRehash(user, rehash);
    if (totp || passkeys.length > 0) {
      // `required`: a user with a passkey must use it; the code form is not offered.
      const offerTotp = totp !== undefined && (policy !== 'required' || passkeys.length === 0);
      return secondFactorForm(interaction, user.id, binding.value, deps, { status: 200 }, { totp: offerTotp, passkeys });
    }
    return addPasskeyForm(interaction, user, 'pwd', binding.value, deps, { status: 200 });
  }
  const rehash = await check.rehash?.(user);
  return completeLogin(req, interaction, user, ['pwd'], deps, (at) => deps.login.login.recordLogin({ user, at, rehash }));
}

async function otpStep(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const [userId, expiry] = str(form.otp_state).split('.');
  const valid =
    userId !== undefined &&
    expiry !== undefined &&
    Number(expiry) > nowSeconds(deps) &&
    (await isFormToken(deps.csrfKey, form.csrf_token, 'login-otp', interaction.id, browser, userId, expiry));
  if (!valid) {
    return passwordForm(req, interaction, deps, { status: 400, username: '', error: 'This form has expired. Please sign in again.' });
  }
  const passkeys = deps.passkeyPolicy === 'off' ? [] : await deps.passkeys.list(userId);
  const offered = { totp: deps.passkeyPolicy !== 'required' || passkeys.length === 0, passkeys };
  // `required`: a user with a passkey must use it; the code form was not offered.
  if (!offered.totp) return secondFactorForm(interaction, userId, browser, deps, { status: 400, error: 'Use your passkey.' }, offered);
  const code = str(form.otp);
  if (!isTotpCodeShape(code)) {
    return secondFactorForm(interaction, userId, browser, deps, { status: 400, error: 'Enter the 6-digit code.' }, offered);
  }
  const outcome = await attempt({ tenantId: interaction.tenant_id, userId }, totpCheck(code, deps.login), deps);
  if (outcome.refused) {
    return secondFactorForm(
      interaction,
      userId,
      browser,
      deps,
      {
        status: outcome.status,
        error: outcome.status === 429 ? outcome.refused.error : 'The code is not correct. Try the current code.',
        ...(outcome.refused.headers ? { headers: outcome.refused.headers } : {}),
      },
      offered,
    );
  }
  // `required`: TOTP alone does not meet it; the user adds a passkey before the login completes.
  if (deps.passkeyPolicy === 'required') return addPasskeyForm(interaction, outcome.user, 'otp', browser, deps, { status: 200 });
  return completeLogin(req, interaction, outcome.user, ['pwd', 'otp'], deps);
}

type Refused = { refused: { error: string; headers?: Record<string, string> }; status: number; user?: undefined };
type Attempt = { refused?: undefined; user: UserRecord } | Refused;
type PasskeyAttempt = { refused?: undefined; user: UserRecord; amr: 'hwk' | 'swk' } | Refused;

/**
 * One counted attempt (user-login.ts `checkUserSecret`). Refusals become page messages: the
 * lockout is 429 with `Retry-After`; a wrong secret, an unknown user and a blocked user get one
 * wording, so the page tells an attacker nothing about which it was.
 */
async function attempt(subject: LoginSubject, check: SecretCheck, deps: BrowserDeps): Promise<Attempt> {
  try {
    return { user: await checkUserSecret(subject, check, deps.login) };
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

/**
 * A provider link of the login page: a GET, so its token (bound like the form's to the interaction
 * and the browser's `csrf` cookie, and to the provider) is what keeps another site from starting
 * a sign-in in this browser; the page's `Referrer-Policy: no-referrer` keeps the URL to us.
 */
async function followProviderLink(
  req: LoginRequest,
  link: { name: unknown; csrfToken: unknown },
  interaction: InteractionRecord,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const binding = browserBinding(req.headers, deps.secureCookies);
  const name = str(link.name);
  const valid =
    binding.setCookie === undefined &&
    (await isFormToken(deps.csrfKey, link.csrfToken, 'login-provider', interaction.id, binding.value, name));
  const provider = valid && deps.federation ? await deps.federation.providers.byName(interaction.tenant_id, name) : undefined;
  if (!provider?.enabled) {
    return passwordForm(req, interaction, deps, {
      status: 400,
      username: '',
      error: 'This sign-in option is not available. Please try again.',
    });
  }
  try {
    return await startFederatedLogin(interaction, provider, deps.federation!);
  } catch (err) {
    if (!(err instanceof FederationUnavailable)) throw err;
    return passwordForm(req, interaction, deps, {
      status: 502,
      username: '',
      error: `${provider.provider_name} cannot be used right now. Please try again later.`,
    });
  }
}

/**
 * The whole login succeeded: login recorded on the user (its count cleared) by `write` (a
 * passkey's writes its counter in the same transaction, and has done so already: then it is a
 * no-op), a new session, the interaction told. Also the end of a federated login
 * (federated-login.ts), with `amr` `fed`.
 */
export async function completeLogin(
  req: LoginRequest,
  interaction: InteractionRecord,
  user: UserRecord,
  amr: AuthMethod[],
  deps: BrowserDeps,
  write: (at: Date) => Promise<unknown> = (at) => deps.login.login.recordLogin({ user, at }),
): Promise<HttpResponse> {
  const at = deps.now();
  const previous = readCookie(req.headers, SESSION_COOKIE);
  const [{ value, session }] = await Promise.all([
    deps.sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime: Math.floor(at.getTime() / 1000), amr }),
    write(at),
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

async function clientName(interaction: InteractionRecord, deps: BrowserDeps): Promise<string | undefined> {
  return (await deps.getClient(interaction.client_id))?.client_name;
}

interface FormState {
  status: number;
  error?: string;
  headers?: Record<string, string>;
}

async function passwordForm(
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
async function secondFactorForm(
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

const PASSKEY_FAILED = 'The passkey could not be used to sign in. Try again, or use your password.';
const STEP_EXPIRED = 'This form has expired. Please sign in again.';

const secondFactorBinding = (interaction: InteractionRecord, browser: string, userId: string): CeremonyBinding => ({
  purpose: 'login-second-factor',
  subject: interaction.id,
  browser,
  userId,
});
const registerBinding = (interaction: InteractionRecord, browser: string, userId: string) => ({
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
async function signInPasskeyForm(
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
async function addPasskeyForm(
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

/** A posted `step_state`: `{user id}.{expiry}` or, with `after`, `{user id}.{expiry}.{pwd|otp}`. */
function stepStateOf(raw: unknown, withAfter: boolean): { userId: string; expiry: string; after: 'pwd' | 'otp' } | undefined {
  const match = (withAfter ? /^([A-Za-z0-9-]{1,64})\.(\d{1,12})\.(pwd|otp)$/ : /^([A-Za-z0-9-]{1,64})\.(\d{1,12})$/).exec(str(raw));
  if (!match) return undefined;
  return { userId: match[1]!, expiry: match[2]!, after: match[3] === 'otp' ? 'otp' : 'pwd' };
}

/** What the second-factor page offers a user (after a refused passkey or code). */
async function offeredTo(userId: string, deps: BrowserDeps): Promise<{ totp: boolean; passkeys: PasskeyRecord[] }> {
  const [totp, passkeys] = await Promise.all([deps.login.login.otp.find(userId), deps.passkeys.list(userId)]);
  return { totp: totp !== undefined && (deps.passkeyPolicy !== 'required' || passkeys.length === 0), passkeys };
}

/**
 * POST of a passkey form: `sign-in` (passwordless), `second-factor` (after the password),
 * `register` or `skip` (the add-a-passkey page). Policy `off`: refused, whatever was posted.
 */
async function passkeyStep(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  binding: { value: string; setCookie?: string },
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = str(form.passkey);
  if (deps.passkeyPolicy === 'off') {
    return passwordForm(req, interaction, deps, { status: 400, username: '', error: 'Sign in with your username and password.' });
  }
  // A browser without the csrf cookie cannot have been shown any of these forms.
  const browser = binding.setCookie === undefined ? binding.value : undefined;
  if (step === 'sign-in' && browser) return passkeySignIn(req, interaction, form, browser, deps);
  if (step === 'second-factor' && browser) return passkeySecondFactor(req, interaction, form, browser, deps);
  if ((step === 'register' || step === 'skip') && browser) return passkeyRegister(req, interaction, form, step, browser, deps);
  return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
}

async function passkeySignIn(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const refuse = (status: number, error: string, headers?: Record<string, string>) =>
    passwordForm(req, interaction, deps, { status, username: '', error, ...(headers ? { headers } : {}) });
  if (!(await isFormToken(deps.csrfKey, form.csrf_token, 'login-passkey', interaction.id, browser))) return refuse(400, STEP_EXPIRED);
  const credential = parseAssertion(form.credential);
  const userId = userIdOfHandle(credential?.response.userHandle);
  if (!credential || !userId) return refuse(400, PASSKEY_FAILED);
  const binding: CeremonyBinding = { purpose: 'login', subject: interaction.id, browser };
  const outcome = await passkeyAttempt({ tenantId: interaction.tenant_id, userId }, binding, credential, form.state, 'required', deps);
  if (outcome.refused)
    return refuse(outcome.status, outcome.status === 429 ? outcome.refused.error : PASSKEY_FAILED, outcome.refused.headers);
  // A verified passkey is two factors in one (possession and the verification): RFC 8176 §2 `mfa`.
  return completeLogin(req, interaction, outcome.user, [outcome.amr, 'mfa'], deps, RECORDED);
}

async function passkeySecondFactor(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = stepStateOf(form.step_state, false);
  const valid =
    step !== undefined &&
    Number(step.expiry) > nowSeconds(deps) &&
    (await isFormToken(deps.csrfKey, form.csrf_token, 'login-second-factor', interaction.id, browser, step.userId, step.expiry));
  if (!valid) return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
  const { userId } = step;
  const credential = parseAssertion(form.credential);
  const outcome = credential
    ? await passkeyAttempt(
        { tenantId: interaction.tenant_id, userId },
        secondFactorBinding(interaction, browser, userId),
        credential,
        form.state,
        'preferred',
        deps,
      )
    : ({ status: 400, refused: { error: PASSKEY_FAILED } } satisfies Refused as Refused);
  if (outcome.refused) {
    return secondFactorForm(
      interaction,
      userId,
      browser,
      deps,
      {
        status: outcome.status,
        error: outcome.status === 429 ? outcome.refused.error : 'The passkey could not be used. Try again.',
        ...(outcome.refused.headers ? { headers: outcome.refused.headers } : {}),
      },
      await offeredTo(userId, deps),
    );
  }
  return completeLogin(req, interaction, outcome.user, ['pwd', outcome.amr, 'mfa'], deps, RECORDED);
}

async function passkeyRegister(
  req: LoginRequest,
  interaction: InteractionRecord,
  form: LoginForm,
  action: 'register' | 'skip',
  browser: string,
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const step = stepStateOf(form.step_state, true);
  const valid =
    step !== undefined &&
    Number(step.expiry) > nowSeconds(deps) &&
    (await isFormToken(
      deps.csrfKey,
      form.csrf_token,
      'login-register',
      interaction.id,
      browser,
      step.userId,
      step.expiry,
      step.after,
      str(form.state),
    ));
  // The password step passed for this user; it is read again (consistent) for a block meanwhile.
  const user = valid ? await deps.getUser(step.userId) : undefined;
  if (!valid || !user || user.tenant_id !== interaction.tenant_id || user.blocked) {
    return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
  }
  const before: AuthMethod[] = step.after === 'otp' ? ['pwd', 'otp'] : ['pwd'];
  if (action === 'skip') {
    if (deps.passkeyPolicy !== 'optional') {
      return addPasskeyForm(interaction, user, step.after, browser, deps, { status: 400, error: 'Add a passkey to continue.' });
    }
    if (!(await useStateOnce('login-register', form.state, deps))) {
      return passwordForm(req, interaction, deps, { status: 400, username: '', error: STEP_EXPIRED });
    }
    return completeLogin(req, interaction, user, before, deps);
  }
  const credential = parseAttestation(form.credential);
  const verified = credential
    ? await verifyRegistration(
        { binding: registerBinding(interaction, browser, user.id), state: form.state, credential, user, userVerification: 'required' },
        deps,
      )
    : ({ failure: 'invalid' } as const);
  if ('failure' in verified) {
    return addPasskeyForm(interaction, user, step.after, browser, deps, { status: 400, error: registrationFailure(verified.failure) });
  }
  try {
    await deps.passkeys.add(verified.passkey);
  } catch (err) {
    if (!isAppError(err) || (err.status !== 409 && err.status !== 404)) throw err;
    return addPasskeyForm(interaction, user, step.after, browser, deps, {
      status: 400,
      error: 'This passkey could not be added (it may be added already). Try another one.',
    });
  }
  // The new passkey was just used with user verification (required above): RFC 8176 §2 `mfa`.
  return completeLogin(req, interaction, user, [...before, amrOf(verified.passkey.device_type), 'mfa'], deps);
}

const registrationFailure = (failure: CeremonyFailure) =>
  failure === 'expired' ? 'This page has expired. Try again.' : 'The passkey could not be added. Try again.';

/** For completeLogin: the passkey's login, counter and last use were recorded in one write already. */
const RECORDED = async () => {};

const INVALID_CREDENTIALS = ['reason', 'invalid_credentials'] as const;

/**
 * One counted passkey attempt, through the lockout a password goes through (user-login.ts
 * `checkUserSecret`): the assertion is the secret. The credential must be one of the named user's
 * passkeys (a credential of user A with user B's userHandle is B's attempt, and fails). Then the
 * login, the counter and the last use are written in ONE transaction, on condition that the
 * passkey is unchanged since it was read: a removal or a racing sign-in meanwhile is a failure.
 */
async function passkeyAttempt(
  subject: LoginSubject,
  binding: CeremonyBinding,
  credential: NonNullable<ReturnType<typeof parseAssertion>>,
  state: unknown,
  userVerification: 'required' | 'preferred',
  deps: BrowserDeps,
): Promise<PasskeyAttempt> {
  let verified: { passkey: PasskeyRecord; counter: number; amr: 'hwk' | 'swk' } | undefined;
  const check: SecretCheck = {
    start: () => ({
      settled: Promise.resolve(),
      async verify(user) {
        const passkey = user ? await deps.passkeys.findByCredential(user.id, credential.id) : undefined;
        if (!passkey) return false;
        const result = await verifySignIn({ binding, state, credential, passkey, userVerification }, deps);
        if ('failure' in result) {
          if (result.failure === 'counter') counterRegressed(passkey, deps);
          return false;
        }
        verified = { passkey, counter: result.counter, amr: result.amr };
        return true;
      },
    }),
  };
  const outcome = await attempt(subject, check, deps);
  if (outcome.refused) return outcome;
  const recorded =
    verified !== undefined &&
    (await deps.passkeys.recordLogin({ userId: outcome.user.id, at: deps.now(), passkey: verified.passkey, counter: verified.counter }));
  if (!verified || !recorded) {
    deps.login.metrics.count('LoginsFailed', INVALID_CREDENTIALS);
    return { status: 400, refused: { error: PASSKEY_FAILED } };
  }
  return { user: outcome.user, amr: verified.amr };
}

/**
 * A verified assertion whose signature counter did not go up (WebAuthn §6.1.1): a cloned
 * authenticator. Refused by the caller; reported here (no key material, no credential id).
 */
function counterRegressed(passkey: PasskeyRecord, deps: BrowserDeps): void {
  logger.warn('passkey signature counter went backwards', { user_id: passkey.user_id, passkey_id: passkey.id });
  deps.login.metrics.count('PasskeyCounterRegressed');
}

/** A request with no usable `interaction` parameter. */
export const missingInteraction = (): HttpResponse =>
  errorPage(400, 'Sign-in expired', 'This page needs a sign-in request. Go back to the application and start again.');
