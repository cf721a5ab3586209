import { isDependencyUnavailable } from '../aws/dependency-failure.ts';
import { type AppError, badRequest, internalError, isAppError, payloadTooLarge, serviceUnavailable } from '../errors.ts';
import type { HttpResponse } from './response.ts';
import { jsonResponse } from './response.ts';

/**
 * Maps anything thrown into an AppError. middy's parsers throw `HttpError`s (422 malformed JSON,
 * 415, 413); they are client errors and become our 400/413 with the field named. An AWS dependency
 * that timed out or is unreachable is a 503.
 */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = err as { statusCode?: number; expose?: boolean; message?: string; cause?: unknown };
  if (typeof e?.statusCode === 'number' && e.statusCode < 500) {
    if (e.statusCode === 413) return payloadTooLarge(0);
    // The JSON parser also refuses `__proto__` (and `constructor.prototype`) members with a 422:
    // well-formed JSON, so say which member instead of "malformed".
    const forbidden = e.message === 'Forbidden key in JSON body' ? (e.cause as { data?: unknown } | undefined)?.data : undefined;
    const what =
      typeof forbidden === 'string'
        ? `body: a member named "${forbidden}" is not accepted`
        : e.statusCode === 422
          ? 'body: malformed JSON'
          : `body: ${e.message ?? 'invalid'}`;
    return badRequest(`${what}.`, { cause: err });
  }
  // An AWS call that timed out or found its dependency unreachable, wherever it was not translated
  // at a repository boundary: 503 with Retry-After on every route, never a 500 (docs/contract.md §2).
  if (isDependencyUnavailable(err)) return serviceUnavailable({ cause: err });
  return internalError({ cause: err });
}

/**
 * The error body of docs/contract.md §2: `{code, message}`, `message` pointing at the docs when a docs URL is
 * configured; with `oauth`, also RFC 6749 §5.2's `error` and `error_description` (the same values,
 * without the pointer).
 */
export function errorBody(code: string, message: string, docsUrl: string | undefined, oauth: boolean): Record<string, string> {
  const body: Record<string, string> = { code, message: docsUrl ? `${message} See ${docsUrl}/errors#${code}` : message };
  if (oauth) {
    body.error = code;
    body.error_description = message;
  }
  return body;
}

/** Renders `{code, message}` (plus RFC 6749 `error`/`error_description` on OAuth endpoints). */
export function renderError(err: AppError, docsUrl: string | undefined, oauthEndpoint: boolean): HttpResponse {
  const body = errorBody(err.code, err.expose ? err.message : 'Internal error.', docsUrl, oauthEndpoint || err.oauth);
  const headers: Record<string, string> = { ...err.headers };
  if (oauthEndpoint) {
    // RFC 6749 §5.1: token responses, errors included, are not cached.
    headers['Cache-Control'] = 'no-store';
    headers.Pragma = 'no-cache';
  }
  return jsonResponse(err.status, body, headers);
}
