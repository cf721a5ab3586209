import httpSecurityHeaders from '@middy/http-security-headers';
import type { HttpResponse } from './response.ts';

/**
 * The one set of security headers (API.md §8 "Errors": every response carries
 * `X-Content-Type-Options: nosniff`): middy's defaults (helmet's) with a deny-all CSP, since the
 * API serves JSON only. The pipeline uses the middleware; answers made outside it (the API's
 * fallback function, the local server's own 404/405/413/429/431) go through `withSecurityHeaders`.
 */
export const securityHeaders = () =>
  httpSecurityHeaders({ contentSecurityPolicy: { 'default-src': "'none'", 'frame-ancestors': "'none'" } });

const middleware = securityHeaders();

/** `response` with the pipeline's security headers added (a copy; `response` is left as it was). */
export function withSecurityHeaders(response: HttpResponse): HttpResponse {
  const request = { response: { ...response, headers: { ...response.headers } } };
  // The middleware's `after` hook only reads and writes `request.response`.
  (middleware.after as (r: typeof request) => void)(request);
  return request.response;
}
