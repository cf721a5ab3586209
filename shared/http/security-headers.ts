import type middy from '@middy/core';
import httpSecurityHeaders from '@middy/http-security-headers';
import { pageCsp } from '../html/page.ts';
import type { HttpResponse } from './response.ts';

/**
 * The one set of security headers (API.md §8 "Errors": every response carries
 * `X-Content-Type-Options: nosniff`): middy's defaults (helmet's) with a deny-all CSP, since the
 * API serves JSON only. The pipeline uses the middleware; answers made outside it (the API's
 * fallback function, the local server's own 404/405/413/429/431) go through `withSecurityHeaders`.
 */
export const securityHeaders = () =>
  httpSecurityHeaders({ contentSecurityPolicy: { 'default-src': "'none'", 'frame-ancestors': "'none'" } });

/**
 * The same headers for a hosted HTML page (API.md §7.4), with the page CSP (shared/html/page.ts)
 * instead of middy's (its default `sandbox` and `form-action 'none'` would stop the page's own
 * form, and `upgrade-insecure-requests` would send a local `http://localhost` form to https). A
 * CSP the page set itself (one naming a redirect origin in `form-action`) is kept.
 */
export function pageSecurityHeaders(): middy.MiddlewareObj<unknown, HttpResponse> {
  const base = httpSecurityHeaders({ contentSecurityPolicy: false });
  const apply = (hook: 'after' | 'onError') => (request: middy.Request<unknown, HttpResponse>) => {
    if (!request.response) return;
    const own = request.response.headers?.['Content-Security-Policy'];
    (base[hook] as (r: typeof request) => void)(request);
    request.response.headers['Content-Security-Policy'] = own ?? pageCsp();
  };
  return { after: apply('after'), onError: apply('onError') };
}

const middleware = securityHeaders();

/** `response` with the pipeline's security headers added (a copy; `response` is left as it was). */
export function withSecurityHeaders(response: HttpResponse): HttpResponse {
  const request = { response: { ...response, headers: { ...response.headers } } };
  // The middleware's `after` hook only reads and writes `request.response`.
  (middleware.after as (r: typeof request) => void)(request);
  return request.response;
}
