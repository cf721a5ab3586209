/**
 * The one error model of the service (docs/contract.md section 2). Every failure a handler can meet is an
 * `AppError`; the error renderer (shared/http/render-error.ts) turns it into `{code, message}`.
 * `message` is client-safe; `detail` and `cause` are for logs only; an error with `expose=false`
 * (500 and any other 5xx but 501 and 503) never shows its message to the client. 501 and 503 show
 * theirs: each is a fixed text of ours that tells the client what to do (which option is not
 * supported; retry later), and nothing of a cause is ever in it.
 */
export interface AppErrorOptions {
  /** Extra response headers (WWW-Authenticate, Allow, Retry-After). */
  headers?: Record<string, string>;
  /** Log-only context; never rendered. */
  detail?: unknown;
  cause?: unknown;
  /** OAuth endpoints also render RFC 6749 `error`/`error_description` (docs/contract.md section 2). */
  oauth?: boolean;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  readonly detail: unknown;
  oauth: boolean;

  constructor(status: number, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.expose = status < 500 || status === 501 || status === 503;
    this.headers = options.headers ?? {};
    this.detail = options.detail;
    this.oauth = options.oauth ?? false;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

// Factories, one per row of docs/contract.md section 2's table.
export const badRequest = (message: string, options?: AppErrorOptions) => new AppError(400, 'invalid_request', message, options);

export const unauthorized = (message = 'Missing or invalid credentials.', options?: AppErrorOptions) =>
  new AppError(401, 'unauthorized', message, {
    ...options,
    headers: { 'WWW-Authenticate': 'Bearer realm="identity"', ...options?.headers },
  });

/** RFC 6750 §3.1: a bad bearer token is 401 invalid_token with a WWW-Authenticate challenge. */
export const invalidToken = (message = 'The access token is missing, invalid or expired.') =>
  new AppError(401, 'invalid_token', message, {
    headers: { 'WWW-Authenticate': `Bearer realm="identity", error="invalid_token", error_description="${message}"` },
  });

/** RFC 6750 §3.1: a request with no bearer credential at all gets the challenge without an error code. */
export const missingBearer = (message = 'Missing bearer token.') =>
  new AppError(401, 'invalid_token', message, { headers: { 'WWW-Authenticate': 'Bearer realm="identity"' } });

export const forbidden = (message = 'Not allowed.', options?: AppErrorOptions) => new AppError(403, 'forbidden', message, options);

/** RFC 6750 §3.1 insufficient_scope. */
export const insufficientScope = (scope: string) =>
  new AppError(403, 'insufficient_scope', `The access token lacks the scope ${scope}.`, {
    headers: { 'WWW-Authenticate': `Bearer realm="identity", error="insufficient_scope", scope="${scope}"` },
  });

export const notFound = (message = 'Not found.') => new AppError(404, 'not_found', message);

export const methodNotAllowed = (allow: string[]) =>
  new AppError(405, 'method_not_allowed', `Method not allowed. Allowed: ${allow.join(', ')}.`, {
    headers: { Allow: allow.join(', ') },
  });

export const conflict = (message: string, options?: AppErrorOptions) => new AppError(409, 'conflict', message, options);

export const payloadTooLarge = (limit: number) => new AppError(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`);

/** RFC 6585 §5: the request's header fields are too large (the local server's HTTP parser limit). */
export const headersTooLarge = () => new AppError(431, 'headers_too_large', 'The request headers are too large.');

export const tooManyRequests = (retryAfterSeconds = 1) =>
  new AppError(429, 'too_many_requests', 'Too many requests.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export const internalError = (options?: AppErrorOptions) => new AppError(500, 'internal_error', 'Internal error.', options);

export const notImplemented = (message: string) => new AppError(501, 'not_implemented', message);

export const serviceUnavailable = (options?: AppErrorOptions) =>
  new AppError(503, 'service_unavailable', 'A dependency is unavailable; retry later.', {
    ...options,
    headers: { 'Retry-After': '1', ...options?.headers },
  });

/** RFC 6749 §5.2 errors of the token, revocation and introspection endpoints. */
export const oauthError = (status: number, code: string, message: string, options?: AppErrorOptions) =>
  new AppError(status, code, message, { ...options, oauth: true });

export const invalidClient = (message = 'Client authentication failed.') =>
  oauthError(401, 'invalid_client', message, {
    headers: { 'WWW-Authenticate': 'Basic realm="identity", charset="UTF-8"' },
  });
