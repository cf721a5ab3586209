import * as v from 'valibot';
import { type AppError, isAppError, oauthError, payloadTooLarge } from '../../errors.ts';
import { authenticateClient } from '../authenticate-client.ts';
import type { AuthorizeDeps } from '../authorize/authorize-deps.ts';
import {
  AUTHORIZE_PARAMETERS,
  AuthorizeError,
  redirectTarget,
  UnverifiedRequestError,
  verifyClientAndRedirect,
} from '../authorize/authorize-request.ts';
import { checkAuthorizeRequest } from '../authorize/start-authorization.ts';

/**
 * How long a `request_uri` may be used (RFC 9126 §2.2 `expires_in`: "short-lived"): 60 s, as an
 * authorization code (docs/client-authentication.md "Pushed authorization requests (PAR)"). The
 * client sends the browser to `/authorize` right after the push.
 */
export const PUSHED_REQUEST_LIFETIME_SECONDS = 60;
/** A pushed request's form body at most (bytes): the authorization parameters, each ≤ 2 KB, and a client assertion. */
export const MAX_PUSHED_BODY_BYTES = 16 * 1024;
/** Parameters of a pushed request at most: the authorization request's, client authentication's, and room for extensions. */
export const MAX_PUSHED_PARAMETERS = 40;

const optional = v.optional(v.pipe(v.string(), v.maxLength(4096)));

/**
 * `POST /par` (RFC 9126 §2.1): client authentication (RFC 6749 §2.3, RFC 7523 §2.2) beside the
 * authorization request's parameters, which the use case checks as `/authorize` does. Loose, as
 * unknown parameters are ignored (RFC 6749 §3.1); at most MAX_PUSHED_PARAMETERS of them.
 */
export const PushedRequestSchema = v.pipe(
  v.looseObject({
    client_id: optional,
    client_secret: optional,
    client_assertion: optional,
    client_assertion_type: optional,
  }),
  v.check((body) => Object.keys(body).length <= MAX_PUSHED_PARAMETERS, `must have at most ${MAX_PUSHED_PARAMETERS} parameters`),
);
export type PushedRequest = v.InferOutput<typeof PushedRequestSchema>;

/** RFC 9126 §2.2. */
export interface PushedRequestResponse {
  request_uri: string;
  expires_in: number;
}

export type PushedRequestDeps = Pick<AuthorizeDeps, 'oauth' | 'federation' | 'pushedRequests'>;

const FORM = /^application\/x-www-form-urlencoded(;|$)/i;

/**
 * The body's bounds, before any other work (docs/security.md "Exhaustion bounds"): a form
 * (RFC 9126 §2.1; else 415), at most MAX_PUSHED_BODY_BYTES (413, §2.3).
 */
export function checkPushedBody(rawBody: string | undefined, contentType: string | undefined): void {
  // RFC 9110 §15.5.16: a body in another format is 415, whatever it holds.
  if (!FORM.test(contentType ?? '')) {
    throw oauthError(415, 'invalid_request', 'body: must be application/x-www-form-urlencoded (RFC 9126 §2.1).');
  }
  if (Buffer.byteLength(rawBody ?? '') > MAX_PUSHED_BODY_BYTES) throw payloadTooLarge(MAX_PUSHED_BODY_BYTES);
}

/**
 * The pushed authorization request endpoint (RFC 9126 §2):
 * 1. `request_uri` cannot be pushed (§2.1);
 * 2. the client authenticates as at `/token` (authenticate-client.ts); a `client_id` in the body
 *    is that client's;
 * 3. the authorization parameters pass every check of `/authorize` (its redirect URI registered,
 *    PKCE, scopes, the target Resource, prompt, ...), answered as JSON 400 `{error,
 *    error_description}` instead of a page or a redirect (§2.3; a bad redirect URI is `invalid_request`);
 * 4. those parameters (AUTHORIZE_PARAMETERS only: never a credential) are stored under the SHA-256
 *    of a new `request_uri` of 256 random bits, for PUSHED_REQUEST_LIFETIME_SECONDS.
 */
export async function pushAuthorizationRequest(
  headers: Record<string, string | undefined>,
  body: PushedRequest,
  deps: PushedRequestDeps,
): Promise<PushedRequestResponse> {
  if (body.request_uri !== undefined) throw oauthError(400, 'invalid_request', 'request_uri: cannot be pushed (RFC 9126 §2.1).');
  const { client } = await authenticateClient(headers, body, deps.oauth, '/par');
  if (body.client_id !== undefined && body.client_id !== client.id) {
    throw oauthError(400, 'invalid_request', 'client_id: is not the authenticated client.');
  }
  const params: Record<string, unknown> = { client_id: client.id };
  for (const name of [...AUTHORIZE_PARAMETERS, 'request']) if (body[name] !== undefined) params[name] = body[name];
  try {
    const { redirectUri } = await verifyClientAndRedirect(params, async () => client);
    await checkAuthorizeRequest(params, client, redirectUri, redirectTarget(params, redirectUri), deps);
  } catch (err) {
    throw asPushError(err);
  }
  const stored: Record<string, string> = {};
  // Checked above: each is one string (authorize-request.ts `single`); `request` was refused.
  for (const name of AUTHORIZE_PARAMETERS) {
    const value = params[name];
    if (typeof value === 'string') stored[name] = value;
  }
  const { requestUri } = await deps.pushedRequests.push(client.id, stored, PUSHED_REQUEST_LIFETIME_SECONDS);
  return { request_uri: requestUri, expires_in: PUSHED_REQUEST_LIFETIME_SECONDS };
}

/** `/authorize`'s refusals as the token endpoint's error response (RFC 9126 §2.3). */
function asPushError(err: unknown): unknown {
  if (err instanceof UnverifiedRequestError) return oauthError(400, 'invalid_request', err.message);
  if (err instanceof AuthorizeError) return oauthError(400, err.error, err.description);
  if (isAppError(err) && (err as AppError).status === 400) return oauthError(400, err.code, err.message);
  return err;
}
