import httpSecurityHeaders from '@middy/http-security-headers';
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '#shared/http/response.ts';
import {
  API_SECURITY_HEADERS,
  PERMISSIONS_POLICY,
  PERMISSIONS_POLICY_FEATURES,
  securityHeaders,
  withSecurityHeaders,
} from '#shared/http/security-headers.ts';

/**
 * The API's security headers are written out in shared/http/security-headers.ts instead of made by
 * middy's http-security-headers at start (its 5.5 KB stay out of the API bundles). They must stay
 * exactly what that middleware writes with the API's options (helmet's defaults, a deny-all CSP):
 * a middy update that changes its defaults fails here, and the set is then updated on purpose.
 */
const middyWrites = (response: HttpResponse) => {
  const request = { response: { ...response, headers: { ...response.headers } } };
  const middleware = httpSecurityHeaders({ contentSecurityPolicy: { 'default-src': "'none'", 'frame-ancestors': "'none'" } });
  (middleware.after as (r: typeof request) => void)(request);
  return request.response;
};

/** The Permissions-Policy features of middy's default that Chromium does not recognise (its console says so on every page). */
const UNRECOGNISED = [
  'all-screens-capture',
  'ambient-light-sensor',
  'battery',
  'document-domain',
  'execution-while-not-rendered',
  'execution-while-out-of-viewport',
  'monetization',
  'navigation-override',
  'web-share',
  'conversion-measurement',
  'focus-without-user-activation',
  'sync-script',
  'trust-token-redemption',
  'window-placement',
  'vertical-scroll',
];
/** Their current names, where a feature was renamed. */
const RENAMED = ['private-state-token-redemption', 'window-management'];
const features = (policy: string) => policy.split(', ').map((f) => f.replace(/=\(\)$/, ''));

describe('API security headers', () => {
  it("are exactly middy's, Permissions-Policy aside, for a plain answer and for one naming its server", () => {
    const responses: HttpResponse[] = [
      { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' },
      { statusCode: 429, headers: { 'Retry-After': '1', Server: 'x', 'X-Powered-By': 'y', 'X-Frame-Options': 'SAMEORIGIN' }, body: '' },
    ];
    for (const response of responses) {
      const middy = middyWrites(response);
      expect(withSecurityHeaders(response)).toEqual({ ...middy, headers: { ...middy.headers, 'Permissions-Policy': PERMISSIONS_POLICY } });
    }
    expect(API_SECURITY_HEADERS['X-Content-Type-Options']).toBe('nosniff');
  });

  it("Permissions-Policy denies middy's features to every origin, less those Chromium does not know, renamed ones by their new name", () => {
    const middy = middyWrites({ statusCode: 200, headers: {}, body: '' }).headers['Permissions-Policy']!;
    expect(PERMISSIONS_POLICY).toMatch(/^[a-z-]+=\(\)(, [a-z-]+=\(\))*$/);
    const ours = features(PERMISSIONS_POLICY);
    expect(ours.sort()).toEqual([...features(middy).filter((f) => !UNRECOGNISED.includes(f)), ...RENAMED].sort());
    expect(PERMISSIONS_POLICY_FEATURES).toEqual(features(PERMISSIONS_POLICY));
  });

  it('the pipeline middleware adds them to answers and error answers alike, and leaves the answer it was given unchanged', () => {
    const middleware = securityHeaders();
    for (const hook of ['after', 'onError'] as const) {
      const given: HttpResponse = { statusCode: 400, headers: { 'Cache-Control': 'no-store' }, body: '{}' };
      const request = { response: given } as Parameters<NonNullable<typeof middleware.after>>[0];
      (middleware[hook] as (r: typeof request) => void)(request);
      expect(request.response).toEqual({ ...given, headers: { 'Cache-Control': 'no-store', ...API_SECURITY_HEADERS } });
      expect(given.headers).toEqual({ 'Cache-Control': 'no-store' });
    }
    // An error before any answer: nothing to add to.
    const none = { response: undefined } as unknown as Parameters<NonNullable<typeof middleware.onError>>[0];
    (middleware.onError as (r: typeof none) => void)(none);
    expect(none.response).toBeUndefined();
  });
});
