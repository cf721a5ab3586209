import { html } from '../../html/html.ts';
import { errorPage, htmlPage } from '../../html/page.ts';
import type { HttpResponse } from '../../http/response.ts';
import type { AuthorizeError, RedirectTarget } from './authorize-request.ts';

/**
 * The authorization response (RFC 6749 §4.1.2, §4.2.2) or error (§4.1.2.1, §4.2.2.1) to the
 * verified redirect URI, in the response mode:
 * - `query`: added to the URI's query, keeping its own query (§3.1.2);
 * - `fragment`: in the fragment (the URI never has one: client-metadata-schema.ts);
 * - `form_post` (OAuth 2.0 Form Post Response Mode §2): an HTML form posted by a script allowed
 *   by its hash, with a button when JavaScript is off.
 * Every response carries `iss` (RFC 9207 §2), errors too, and `state` when the request had one.
 * 303 See Other, so a POSTed /authorize is followed with a GET. Never cached (codes, tokens).
 */
export function authorizationResponse(target: RedirectTarget, issuer: string, params: Record<string, string | undefined>): HttpResponse {
  const entries: [string, string][] = [];
  for (const [k, v] of Object.entries({ ...params, state: target.state, iss: issuer })) if (v !== undefined) entries.push([k, v]);
  if (target.responseMode === 'form_post') return formPost(target.redirectUri, entries);
  const encoded = new URLSearchParams(entries).toString();
  const location =
    target.responseMode === 'fragment'
      ? `${target.redirectUri}#${encoded}`
      : `${target.redirectUri}${target.redirectUri.includes('?') ? '&' : '?'}${encoded}`;
  return { statusCode: 303, headers: { Location: location, 'Cache-Control': 'no-store', Pragma: 'no-cache' }, body: '' };
}

/** An error sent to the client (the redirect URI is verified). */
export const authorizationError = (target: RedirectTarget, issuer: string, err: AuthorizeError): HttpResponse =>
  authorizationResponse(target, issuer, { error: err.error, error_description: err.description });

/** An error before the client and redirect URI are verified (docs/contract.md §7.4, §7.8): a 400 page, never a redirect. */
export const unverifiedRequestPage = (message: string): HttpResponse =>
  errorPage(400, 'The sign-in request is not valid', `${message} Ask the application you came from to fix its sign-in link.`);

function formPost(redirectUri: string, entries: [string, string][]): HttpResponse {
  // form-action names the client's origin (CSP3 governs where a form may post).
  const origin = new URL(redirectUri).origin;
  return htmlPage({
    title: 'Signing you in…',
    formActions: [origin],
    autoSubmit: true,
    body: html`<form method="post" action="${redirectUri}">
${entries.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}<p>If nothing happens, continue to the application.</p>
<button type="submit">Continue</button>
</form>`,
  });
}
