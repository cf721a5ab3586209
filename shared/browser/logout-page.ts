import { compactVerify, decodeProtectedHeader } from 'jose';
import { html } from '../html/html.ts';
import { errorPage, htmlPage } from '../html/page.ts';
import type { HttpResponse } from '../http/response.ts';
import type { BrowserDeps } from './browser-deps.ts';
import { formToken, isFormToken, withCookie } from './browser-responses.ts';
import { clearedSessionCookie, readCookie, SESSION_COOKIE } from './cookies.ts';

/** OIDC RP-Initiated Logout 1.0 §2 parameters (query on GET, form body on POST), plus the confirmation's token. */
export interface LogoutParams {
  id_token_hint?: unknown;
  post_logout_redirect_uri?: unknown;
  state?: unknown;
  client_id?: unknown;
  csrf_token?: unknown;
}

export interface LogoutRequest {
  method: 'GET' | 'POST';
  params: LogoutParams;
  headers: Record<string, string | undefined>;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const invalid = (message: string) => errorPage(400, 'Sign-out request not valid', message);

/**
 * The subject and client of an `id_token_hint`: an ID token WE signed (a key of our JWKS, ES256 or
 * RS256, our `iss`, not an access token). Its expiry is not checked: RP-Initiated Logout 1.0 §2
 * expects expired ID tokens here (the RP logs out long after the login). Undefined: forged,
 * malformed, or not ours.
 */
async function verifyHint(token: string, deps: BrowserDeps): Promise<{ sub: string; clientId: string } | undefined> {
  try {
    const header = decodeProtectedHeader(token);
    if (typeof header.kid !== 'string' || header.typ === 'at+jwt') return undefined;
    const key = await deps.keys.publicKey(header.kid);
    if (!key || key.alg !== header.alg) return undefined;
    const { payload } = await compactVerify(token, key.key, { algorithms: ['ES256', 'RS256'] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    const aud = Array.isArray(claims.aud) && claims.aud.length === 1 ? claims.aud[0] : claims.aud;
    if (claims.iss !== deps.issuer || typeof claims.sub !== 'string' || typeof aud !== 'string') return undefined;
    return { sub: claims.sub, clientId: aud };
  } catch {
    return undefined;
  }
}

/**
 * Where to send the browser after the logout: `post_logout_redirect_uri` only when it equals one
 * of the client's `client_metadata.urls.post_logout_redirect_uris` exactly (docs/contract.md §7.4: no
 * prefix, case or trailing-slash variant), with `state` appended (RP-Initiated Logout 1.0 §3).
 */
async function redirectTarget(
  uri: string,
  clientId: string | undefined,
  state: string | undefined,
  deps: BrowserDeps,
): Promise<string | undefined> {
  if (!clientId) return undefined;
  const client = await deps.getClient(clientId);
  const registered = client?.client_metadata.urls.post_logout_redirect_uris;
  if (!Array.isArray(registered) || !registered.includes(uri)) return undefined;
  if (state === undefined) return uri;
  const url = new URL(uri);
  url.searchParams.append('state', state);
  return url.toString();
}

/**
 * GET, POST `/logout` (OIDC RP-Initiated Logout 1.0; docs/browser-flows.md "Logout"):
 * - a valid `id_token_hint` for the session's user ends the browser's session at once; a forged
 *   or foreign one is a 400 page;
 * - without a hint (or with one for another user) the page asks first, and its POST (CSRF bound
 *   to the session) ends it: a link on another site cannot sign anyone out;
 * - `post_logout_redirect_uri` must be registered exactly for the client (the hint's `aud`, or
 *   `client_id`), else a 400 page and no redirect; `state` is passed back.
 * Ending the session sets its `ended_at` and clears the cookie.
 */
export async function logout(req: LogoutRequest, deps: BrowserDeps): Promise<HttpResponse> {
  const { params } = req;
  const hintToken = text(params.id_token_hint);
  const hint = hintToken ? await verifyHint(hintToken, deps) : undefined;
  if (hintToken && !hint) return invalid('The sign-out request carries a token that is not valid.');
  const clientParam = text(params.client_id);
  if (hint && clientParam && clientParam !== hint.clientId) return invalid('The client does not match the token of the request.');
  const clientId = hint?.clientId ?? clientParam;

  const uri = text(params.post_logout_redirect_uri);
  const state = text(params.state);
  const target = uri ? await redirectTarget(uri, clientId, state, deps) : undefined;
  if (uri && !target) return invalid('The address to return to after signing out is not registered for this application.');

  const cookie = readCookie(req.headers, SESSION_COOKIE);
  const session = cookie ? await deps.sessions.findSession(cookie) : undefined;
  if (session && cookie) {
    const confirmed = req.method === 'POST' && (await isFormToken(deps.csrfKey, params.csrf_token, 'logout', session.id));
    if (!confirmed && hint?.sub !== session.user_id) {
      return confirmationPage(session.id, { uri, state, clientId }, deps);
    }
    await deps.sessions.endSession(cookie);
  }
  const cleared = cookie ? clearedSessionCookie(deps.secureCookies) : undefined;
  if (target) {
    return {
      statusCode: 303,
      headers: { Location: target, 'Cache-Control': 'no-store', ...(cleared ? { 'Set-Cookie': cleared } : {}) },
      body: '',
    };
  }
  return withCookie(htmlPage({ title: 'Signed out', body: html`<p>You are signed out.</p>` }), cleared);
}

async function confirmationPage(
  sessionId: string,
  carry: { uri: string | undefined; state: string | undefined; clientId: string | undefined },
  deps: BrowserDeps,
): Promise<HttpResponse> {
  const token = await formToken(deps.csrfKey, 'logout', sessionId);
  // The form's answer may redirect to the RP (CSP3 form-action governs that redirect too).
  const formActions = carry.uri ? [new URL(carry.uri).origin] : [];
  return htmlPage({
    title: 'Sign out?',
    formActions,
    body: html`<p>Do you want to sign out?</p>
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
${carry.uri ? html`<input type="hidden" name="post_logout_redirect_uri" value="${carry.uri}">` : ''}
${carry.state !== undefined ? html`<input type="hidden" name="state" value="${carry.state}">` : ''}
${carry.clientId ? html`<input type="hidden" name="client_id" value="${carry.clientId}">` : ''}
<button type="submit">Sign out</button>
</form>`,
  });
}
