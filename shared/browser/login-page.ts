import { isTotpCodeShape } from '../crypto/totp.ts';
import { errorPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import { authenticatorOf, totpCheck } from '../oauth/grants/otp.ts';
import { passwordCheck } from '../oauth/grants/password.ts';
import { findLoginSubject } from '../oauth/grants/user-login.ts';
import { sessionMeetsAcr } from '../oauth/user-tokens/acr.ts';
import type { InteractionRecord } from '../store/sessions/interactions-repository.ts';
import type { SessionRecord } from '../store/sessions/sessions-repository.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { browserBinding, interactionGone, isFormToken, seeOther } from './browser-responses.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { FederationUnavailable, startFederatedLogin } from './federated-login.ts';
import { attempt, completeLogin, consentUrl, type LoginForm, type LoginRequest, loginContext, nowSeconds, str } from './login-attempts.ts';
import { addPasskeyForm, passwordForm, secondFactorForm } from './login-forms.ts';
import { passkeyStep } from './passkeys/passkey-steps.ts';

// The login page: the password and code steps share the interaction, the CSRF token and the
// lockout attempt; the forms are in login-forms.ts, the passkey steps in passkeys/passkey-steps.ts.

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
  const outcome = await attempt(subject, check, deps, loginContext(req, interaction, 'password'));
  if (outcome.refused) return passwordForm(req, interaction, deps, { status: outcome.status, username, ...outcome.refused });

  const { user, liftsLockout } = outcome;
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
    // The password's counted attempt reached the limit: the second factor still gets its one
    // attempt (login-failures-repository.ts `leaveOneAttempt`).
    if (outcome.atLimit) await deps.login.login.failures.leaveOneAttempt(user.id);
    if (totp || passkeys.length > 0) {
      // `required`: a user with a passkey must use it; the code form is not offered.
      const offerTotp = totp !== undefined && (policy !== 'required' || passkeys.length === 0);
      return secondFactorForm(interaction, user.id, binding.value, deps, { status: 200 }, { totp: offerTotp, passkeys });
    }
    return addPasskeyForm(interaction, user, 'pwd', binding.value, deps, { status: 200 });
  }
  const rehash = await check.rehash?.(user);
  return completeLogin(req, interaction, user, ['pwd'], deps, { method: 'password', liftsLockout, rehash });
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
  const outcome = await attempt(
    { tenantId: interaction.tenant_id, userId },
    totpCheck(code, deps.login),
    deps,
    loginContext(req, interaction, 'password', 'otp'),
  );
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
  // Two factors: RFC 8176 §2 `mfa`, as the password grant with a code says.
  return completeLogin(req, interaction, outcome.user, ['pwd', 'otp', 'mfa'], deps, {
    method: 'password',
    liftsLockout: outcome.liftsLockout,
    mfa: 'otp',
  });
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

/** A request with no usable `interaction` parameter. */
export const missingInteraction = (): HttpResponse =>
  errorPage(400, 'Sign-in expired', 'This page needs a sign-in request. Go back to the application and start again.');
