import { INTROSPECT, READ, SIGN, WRITE, WRITE_DECRYPT } from './access-profiles.ts';
import { client, none } from './auth-rules.ts';
import type { Route } from './route.ts';

/** OAuth 2.0 / OIDC at the root (docs/contract.md §5), with the device flow's user-code pages. */
export const OAUTH_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/.well-known/openid-configuration', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/oauth-authorization-server', handler: 'functions/oauth/discovery', auth: none, access: READ },
  { method: 'GET', path: '/.well-known/jwks.json', handler: 'functions/oauth/jwks', auth: none, access: READ },
  // Password and OTP attempts ride on this bucket: API Gateway throttles by method and path, not by
  // grant_type (a body field). Guessing is bounded per user by the lockout (docs/contract.md §7.3) and per
  // address by a WAF rule (docs/security.md "Rate limits").
  {
    method: 'POST',
    path: '/token',
    handler: 'functions/oauth/token',
    auth: client,
    access: SIGN,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  // Decrypt: an HS256 token is verified with its Resource's secret, sealed under the secret box's
  // data key (opened once per container; docs/keys.md "Secrets at rest").
  {
    method: 'POST',
    path: '/tokeninfo',
    handler: 'functions/oauth/tokeninfo',
    auth: client,
    access: INTROSPECT,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  {
    method: 'POST',
    path: '/introspect',
    handler: 'functions/oauth/introspect',
    auth: client,
    access: INTROSPECT,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  },
  { method: 'POST', path: '/revoke', handler: 'functions/oauth/revoke', auth: client, access: WRITE },
  // OIDC Core §5.3: the handler checks the bearer token itself (user, audience, `openid`), so the
  // rule is `client` (the use case authenticates), not the management API's `bearer`. No KMS:
  // HS256 tokens are refused there, so no Resource secret is ever opened.
  // Relying parties call it after every login, resource servers may on every request: the
  // introspection endpoints' throttle. Writes: a DPoP proof's jti, once (RFC 9449 §11.1).
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/userinfo',
    handler: 'functions/oauth/userinfo',
    auth: client,
    access: WRITE,
    throttle: { rateLimit: 2000, burstLimit: 4000 },
  })),

  // Authorization endpoint (docs/browser-flows.md "Authorization
  // endpoint"). HTML errors and redirects; signs implicit tokens. A stage-wide bucket (API Gateway
  // throttles per method and path, not per caller) sized well above sign-in traffic: it caps a
  // flood of interactions (one item each) without a per-address limit (the WAF's, docs/security.md).
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/authorize',
    handler: 'functions/oauth/authorize',
    auth: none,
    access: SIGN,
    throttle: { rateLimit: 200, burstLimit: 400 },
  })),
  { method: 'GET', path: '/authorize/resume', handler: 'functions/oauth/authorize-resume', auth: none, access: SIGN },
  // Device flow (RFC 8628; docs/browser-flows.md "Device flow"). Each device request
  // writes two items: the stage-wide bucket caps that, as it caps guesses at the /device page
  // (the per-address limit of RFC 8628 §5.1 is in the page itself).
  ...(['GET', 'POST'] as const).map((method) => ({
    method,
    path: '/device_code',
    handler: 'functions/oauth/device-code',
    auth: client,
    // Decrypt: naming an HS256 Resource opens its sealed secret (token-path-records.ts).
    access: WRITE_DECRYPT,
    throttle: { rateLimit: 50, burstLimit: 100 },
  })),
  // Pushed authorization requests (RFC 9126; docs/client-authentication.md "Pushed authorization
  // requests (PAR)"). Each push writes one item: the stage-wide bucket caps that as /device_code's.
  {
    method: 'POST',
    path: '/par',
    handler: 'functions/oauth/par',
    auth: client,
    // Decrypt: naming an HS256 Resource opens its sealed secret (token-path-records.ts).
    access: WRITE_DECRYPT,
    throttle: { rateLimit: 50, burstLimit: 100 },
  },
  // The user-code page: GET shows (and pre-fills), POST checks the code. Its POST bucket caps the
  // guesses of the whole stage (RFC 8628 §5.1); the page also limits each source address itself.
  { method: 'GET', path: '/device', handler: 'functions/pages/device', auth: none, access: { table: 'read', kms: ['decrypt'] } },
  {
    method: 'POST',
    path: '/device',
    handler: 'functions/pages/device',
    auth: none,
    access: WRITE_DECRYPT,
    throttle: { rateLimit: 10, burstLimit: 20 },
  },
  { method: 'GET', path: '/device/resume', handler: 'functions/pages/device-resume', auth: none, access: WRITE_DECRYPT },
];

/**
 * The OAuth endpoints of docs/contract.md §2, whose errors also carry RFC 6749 §5.2's `error` and
 * `error_description`: their handlers say so (`oauth: true`); the fallback function's 405 and the
 * local server's own 405, 413 and 429 on these paths say it too, as API Gateway's gateway
 * responses do (infra/constructs/gateway-responses.ts). test/local/local-server-answers.test.ts
 * checks this set against the handlers.
 */
export const OAUTH_ERROR_PATHS: ReadonlySet<string> = new Set([
  '/token',
  '/tokeninfo',
  '/introspect',
  '/revoke',
  '/userinfo',
  '/device_code',
  '/par',
]);
