import { isTotpCodeShape } from '../crypto/totp.ts';
import { isAppError } from '../errors.ts';
import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { authenticatorOf, totpCheck } from '../oauth/grants/otp.ts';
import { passwordCheck } from '../oauth/grants/password.ts';
import { checkUserSecret, findLoginSubject, type LoginSubject, type SecretCheck } from '../oauth/grants/user-login.ts';
import { sessionMeetsAcr } from '../oauth/user-tokens/acr.ts';
import type { UserRecord } from '../records/user-record.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { AuthMethod, SessionRecord } from '../store/sessions/sessions-repository.ts';
import type { Rehash } from '../store/users/user-login-writes.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { browserBinding, formToken, interactionGone, isFormToken, seeOther, withCookie } from './browser-responses.ts';
import { readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { FederationUnavailable, startFederatedLogin } from './federated-login.ts';

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
  // An enrolled authenticator, even a disabled one, is always asked for: never a silent downgrade to the password alone.
  if (await authenticatorOf(user, deps.login)) {
    // The password is known only in this request, and the code step records the login: a due
    // rehash is stored now (user-login-writes.ts `userRehashWrite`), or it would never be.
    const rehash = await check.rehash?.(user);
    if (rehash) await deps.storeRehash(user, rehash);
    return otpForm(interaction, user.id, binding.value, deps, { status: 200 });
  }
  return completeLogin(req, interaction, user, ['pwd'], deps, await check.rehash?.(user));
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
  const code = str(form.otp);
  if (!isTotpCodeShape(code)) return otpForm(interaction, userId, browser, deps, { status: 400, error: 'Enter the 6-digit code.' });
  const outcome = await attempt({ tenantId: interaction.tenant_id, userId }, totpCheck(code, deps.login), deps);
  if (outcome.refused) {
    return otpForm(interaction, userId, browser, deps, {
      status: outcome.status,
      error: outcome.status === 429 ? outcome.refused.error : 'The code is not correct. Try the current code.',
      ...(outcome.refused.headers ? { headers: outcome.refused.headers } : {}),
    });
  }
  return completeLogin(req, interaction, outcome.user, ['pwd', 'otp'], deps);
}

type Attempt =
  | { refused?: undefined; user: UserRecord }
  | { refused: { error: string; headers?: Record<string, string> }; status: number; user?: undefined };

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
 * The whole login succeeded: login recorded on the user (its count cleared), a new session, the
 * interaction told. Also the end of a federated login (federated-login.ts), with `amr` `fed`.
 */
export async function completeLogin(
  req: LoginRequest,
  interaction: InteractionRecord,
  user: UserRecord,
  amr: AuthMethod[],
  deps: BrowserDeps,
  rehash?: Rehash,
): Promise<HttpResponse> {
  const at = deps.now();
  const previous = readCookie(req.headers, SESSION_COOKIE);
  const [{ value, session }] = await Promise.all([
    deps.sessions.createSession({ userId: user.id, tenantId: user.tenant_id, authTime: Math.floor(at.getTime() / 1000), amr }),
    deps.login.login.recordLogin({ user, at, rehash }),
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
  const [token, name, providers] = await Promise.all([
    formToken(deps.csrfKey, 'login', interaction.id, binding.value),
    clientName(interaction, deps),
    providerLinks(interaction, binding.value, deps),
  ]);
  const page = htmlPage({
    status: state.status,
    title: 'Sign in',
    formActions: interaction.form_actions ?? [],
    body: html`${name ? html`<p>to continue to <strong>${name}</strong></p>` : ''}
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<label for="username">Username or email</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="1024" value="${state.username}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>
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

async function otpForm(
  interaction: InteractionRecord,
  userId: string,
  browser: string,
  deps: BrowserDeps,
  state: FormState,
): Promise<HttpResponse> {
  const expiry = String(nowSeconds(deps) + OTP_STEP_SECONDS);
  const token = await formToken(deps.csrfKey, 'login-otp', interaction.id, browser, userId, expiry);
  const page = htmlPage({
    status: state.status,
    title: 'Enter your code',
    formActions: interaction.form_actions ?? [],
    body: html`<p>Open your authenticator app and enter the 6-digit code it shows.</p>
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<input type="hidden" name="otp_state" value="${`${userId}.${expiry}`}">
<label for="otp">Code</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
<button type="submit">Verify</button>
</form>`,
  });
  return { ...page, headers: { ...state.headers, ...page.headers } };
}

/** A request with no usable `interaction` parameter. */
export const missingInteraction = (): HttpResponse =>
  errorPage(400, 'Sign-in expired', 'This page needs a sign-in request. Go back to the application and start again.');
