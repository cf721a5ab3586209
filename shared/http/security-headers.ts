import type middy from '@middy/core';
import type { HttpResponse } from './response.ts';

/**
 * The one set of security headers of the API's answers (docs/contract.md §8 "Errors": every response carries
 * `X-Content-Type-Options: nosniff`): middy's http-security-headers defaults (helmet's) with a
 * deny-all CSP, since the API serves JSON only. Written out rather than made by that middleware at
 * start: its option schema and policy builders weigh 5.5 KB in every API function's bundle, for a
 * set that never varies with the response. test/http/security-headers.test.ts checks that they
 * are exactly what the middleware writes with these options, so a middy update that changes its
 * defaults fails there. Hosted HTML pages keep the middleware (shared/html/hosted-page.ts).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; report-to default; require-trusted-types-for 'script'; sandbox; upgrade-insecure-requests",
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': [
    'accelerometer',
    'all-screens-capture',
    'ambient-light-sensor',
    'autoplay',
    'battery',
    'camera',
    'cross-origin-isolated',
    'display-capture',
    'document-domain',
    'encrypted-media',
    'execution-while-not-rendered',
    'execution-while-out-of-viewport',
    'fullscreen',
    'geolocation',
    'gyroscope',
    'keyboard-map',
    'magnetometer',
    'microphone',
    'midi',
    'monetization',
    'navigation-override',
    'payment',
    'picture-in-picture',
    'publickey-credentials-get',
    'screen-wake-lock',
    'sync-xhr',
    'usb',
    'web-share',
    'xr-spatial-tracking',
    'clipboard-read',
    'clipboard-write',
    'gamepad',
    'speaker-selection',
    'conversion-measurement',
    'focus-without-user-activation',
    'hid',
    'idle-detection',
    'interest-cohort',
    'serial',
    'sync-script',
    'trust-token-redemption',
    'window-placement',
    'vertical-scroll',
  ]
    .map((feature) => `${feature}=()`)
    .join(', '),
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
