import type middy from '@middy/core';
import type { HttpResponse } from './response.ts';

/**
 * Every powerful feature denied to every origin (`feature=()`), as middy's (helmet's) default
 * Permissions-Policy means it, less the names Chromium does not recognise, each of which it reports
 * as an error in the console of every page (test/pages/api-reference-page.test.ts): features that
 * were removed (`document-domain`, `sync-script`, `vertical-scroll`, ...), never shipped
 * (`monetization`, `navigation-override`, `battery`, ...) or are origin trials
 * (`focus-without-user-activation`). Renamed features keep their intent under their current name:
 * `window-management` (was `window-placement`), `private-state-token-redemption` (was
 * `trust-token-redemption`); `conversion-measurement`'s successor, `attribution-reporting`, is
 * unknown to Debian's Chromium too, and left out. API answers
 * and hosted pages (shared/html/hosted-page.ts) send the same policy.
 */
export const PERMISSIONS_POLICY_FEATURES: readonly string[] = Object.freeze([
  'accelerometer',
  'autoplay',
  'camera',
  'cross-origin-isolated',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'geolocation',
  'gyroscope',
  'keyboard-map',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'picture-in-picture',
  'publickey-credentials-get',
  'screen-wake-lock',
  'sync-xhr',
  'usb',
  'xr-spatial-tracking',
  'clipboard-read',
  'clipboard-write',
  'gamepad',
  'speaker-selection',
  'hid',
  'idle-detection',
  'interest-cohort',
  'serial',
  'window-management',
  'private-state-token-redemption',
]);

/** The `Permissions-Policy` header value of every answer. */
export const PERMISSIONS_POLICY = PERMISSIONS_POLICY_FEATURES.map((feature) => `${feature}=()`).join(', ');

/**
 * The one set of security headers of the API's answers (docs/contract.md §8 "Errors": every response carries
 * `X-Content-Type-Options: nosniff`): middy's http-security-headers defaults (helmet's) with a
 * deny-all CSP, since the API serves JSON only. Written out rather than made by that middleware at
 * start: its option schema and policy builders weigh 5.5 KB in every API function's bundle, for a
 * set that never varies with the response. test/http/security-headers.test.ts checks that they
 * are exactly what the middleware writes with these options, Permissions-Policy aside (above), so
 * a middy update that changes its defaults fails there. Hosted HTML pages keep the middleware (shared/html/hosted-page.ts).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; report-to default; require-trusted-types-for 'script'; sandbox; upgrade-insecure-requests",
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': PERMISSIONS_POLICY,
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'DENY',
  'X-Permitted-Cross-Domain-Policies': 'none',
});

/** `response` with the security headers added (a copy; `response` is left as it was). */
export function withSecurityHeaders(response: HttpResponse): HttpResponse {
  const headers: Record<string, string> = { ...response.headers, ...API_SECURITY_HEADERS };
  // As the middleware does: nothing names the server software.
  delete headers.Server;
  delete headers['X-Powered-By'];
  return { ...response, headers };
}

/**
 * The pipeline's middleware: the headers on every answer, errors included (the error renderer's
 * answer: middy runs onError hooks last-registered first). Answers made outside the pipeline (the
 * API's fallback function, the local server's own 404/405/413/429/431) use `withSecurityHeaders`.
 */
export const securityHeaders = (): middy.MiddlewareObj<unknown, HttpResponse> => {
  const add = (request: middy.Request<unknown, HttpResponse>) => {
    if (request.response) request.response = withSecurityHeaders(request.response);
  };
  return { after: add, onError: add };
};
