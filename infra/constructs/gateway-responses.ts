import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { errorBody } from '#shared/http/render-error.ts';
import { NO_STORE } from '#shared/http/response.ts';
import { withSecurityHeaders } from '#shared/http/security-headers.ts';

interface GatewayError {
  readonly type: apigw.ResponseType;
  /** Omitted for DEFAULT_4XX/5XX: API Gateway keeps the original status. */
  readonly status?: string;
  readonly code: string;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

/**
 * Errors API Gateway answers itself, before any function runs, rendered in the service's error
 * shape (docs/contract.md §2, `gatewayErrorBody`) instead of `{"message": "..."}`. Codes are the service's own
 * (shared/errors.ts) so a client handles a gateway 429 and an application 429 alike.
 */
export const GATEWAY_ERRORS: readonly GatewayError[] = [
  // An unknown path: every route path has an ANY fallback and the root a {proxy+}, so this is a
  // safety net (e.g. a path under a literal segment that has no matching child).
  { type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', code: 'not_found', message: 'Not found.' },
  { type: apigw.ResponseType.RESOURCE_NOT_FOUND, status: '404', code: 'not_found', message: 'Not found.' },
  // Stage and per-route throttles; Retry-After as the application's own 429 sets it.
  {
    type: apigw.ResponseType.THROTTLED,
    status: '429',
    code: 'too_many_requests',
    message: 'Too many requests.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: apigw.ResponseType.QUOTA_EXCEEDED,
    status: '429',
    code: 'too_many_requests',
    message: 'Too many requests.',
    headers: { 'Retry-After': '60' },
  },
  { type: apigw.ResponseType.REQUEST_TOO_LARGE, status: '413', code: 'payload_too_large', message: 'The request is too large.' },
  { type: apigw.ResponseType.ACCESS_DENIED, status: '403', code: 'forbidden', message: 'Not allowed.' },
  {
    type: apigw.ResponseType.UNAUTHORIZED,
    status: '401',
    code: 'unauthorized',
    message: 'Missing or invalid credentials.',
    headers: { 'WWW-Authenticate': 'Bearer realm="identity"' },
  },
  {
    type: apigw.ResponseType.INTEGRATION_TIMEOUT,
    status: '504',
    code: 'service_unavailable',
    message: 'The request timed out; retry later.',
    headers: { 'Retry-After': '1' },
  },
  { type: apigw.ResponseType.DEFAULT_4XX, code: 'invalid_request', message: 'The request was rejected.' },
  { type: apigw.ResponseType.DEFAULT_5XX, code: 'internal_error', message: 'Internal error.' },
];

/**
 * The JSON body of one gateway or WAF error, as the error renderer writes it. docs/contract.md §2 wants
 * `error` and `error_description` on the OAuth endpoints, and a gateway response is one static
 * template per API (not per route, and not VTL: no condition on the path), so every route's gets
 * them: `{code, message, error, error_description}`, which is also `{code, message}` plus two
 * members elsewhere (docs/openapi.md).
 */
export function gatewayErrorBody(e: Pick<GatewayError, 'code' | 'message'>, docsUrl?: string): string {
  return JSON.stringify(errorBody(e.code, e.message, docsUrl, true));
}

/**
 * The pipeline's security headers (docs/contract.md §8: every response, gateway answers included, carries
 * `X-Content-Type-Options: nosniff`), taken from the one set the functions use so they cannot drift.
 * Gateway answers are never cached either (`Cache-Control: no-store`, and RFC 6749 §5.1's
 * `Pragma: no-cache`, which the OAuth endpoints' answers carry, errors included). A header value is a single-quoted literal in a gateway
 * response's mapping, which has no escape for a quote inside it, so values that contain one (the
 * CSP's `'none'`) are left out: a JSON error body has nothing a CSP would govern.
 */
export const GATEWAY_SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const { 'Content-Type': _contentType, ...headers } = withSecurityHeaders({
    statusCode: 400,
    headers: { 'Content-Type': 'application/json' },
    body: '',
  }).headers;
  const literal = Object.entries(headers).filter(([, value]) => !value.includes("'"));
  return { ...Object.fromEntries(literal), ...NO_STORE };
})();

export function addGatewayResponses(api: apigw.RestApi, docsUrl?: string): void {
  for (const e of GATEWAY_ERRORS) {
    api.addGatewayResponse(e.type.responseType, {
      type: e.type,
      statusCode: e.status,
      // Header values are mapping expressions: a literal is single-quoted.
      responseHeaders: Object.fromEntries(Object.entries({ ...GATEWAY_SECURITY_HEADERS, ...e.headers }).map(([k, v]) => [k, `'${v}'`])),
      templates: { 'application/json': gatewayErrorBody(e, docsUrl) },
    });
  }
}
