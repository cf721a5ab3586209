import type middy from '@middy/core';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { PageRendering } from '../http/http-handler.ts';
import type { HttpResponse } from '../http/response.ts';
import { PERMISSIONS_POLICY } from '../http/security-headers.ts';
import { errorPage, pageCsp } from './page.ts';

/**
 * The hosted pages' Permissions-Policy: the API's, but WebAuthn allowed to the page's own origin
 * (W3C WebAuthn Level 3 §5.9, §5.10): the passkey ceremonies (shared/browser/passkeys/) run here,
 * never in a frame of another origin (the page CSP's `frame-ancestors 'none'`).
 */
export const PAGE_PERMISSIONS_POLICY = `${PERMISSIONS_POLICY.replace('publickey-credentials-get=()', 'publickey-credentials-get=(self)')}, publickey-credentials-create=(self)`;

/**
 * The API's security headers (shared/http/security-headers.ts) for a hosted HTML page (docs/contract.md §7.4), with the page CSP (shared/html/page.ts)
 * instead of middy's (its default `sandbox` and `form-action 'none'` would stop the page's own
 * form, and `upgrade-insecure-requests` would send a local `http://localhost` form to https). A
 * CSP the page set itself (one naming a redirect origin in `form-action`) is kept.
 */
function pageSecurityHeaders(): middy.MiddlewareObj<unknown, HttpResponse> {
  const base = httpSecurityHeaders({ contentSecurityPolicy: false });
  const apply = (hook: 'after' | 'onError') => (request: middy.Request<unknown, HttpResponse>) => {
    if (!request.response) return;
    const own = request.response.headers?.['Content-Security-Policy'];
    (base[hook] as (r: typeof request) => void)(request);
    request.response.headers['Content-Security-Policy'] = own ?? pageCsp();
    // Middy's default names features Chromium reports as unrecognised on every page (security-headers.ts).
    request.response.headers['Permissions-Policy'] = PAGE_PERMISSIONS_POLICY;
  };
  return { after: apply('after'), onError: apply('onError') };
}

/**
 * A hosted HTML page's spec (`httpHandler({ page: HOSTED_PAGE })`, docs/contract.md §7.4): errors as the
 * page kit's error page, the page's own Content-Security-Policy kept.
 */
export const HOSTED_PAGE: PageRendering = { errorPage, securityHeaders: pageSecurityHeaders };
