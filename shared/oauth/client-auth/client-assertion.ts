import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import type { OAuthClient } from '../../ports/token-path.ts';

/**
 * What a `private_key_jwt` request presents (RFC 7523 §2.2, OIDC Core §9), read before the client
 * is: this module is small and loads with every token request; the signature check and its key
 * reads (verify-client-assertion.ts) load with the first assertion (docs/client-authentication.md
 * "private_key_jwt").
 */

/**
 * The client-authenticated endpoints, by path. A client assertion names the one it was made for, or
 * the issuer, in its `aud` (RFC 7523 §3 item 3; docs/client-authentication.md).
 */
export type ClientAuthEndpoint = '/token' | '/introspect' | '/tokeninfo' | '/revoke' | '/device_code' | '/par' | '/users/register';

/** RFC 7523 §2.2: the only assertion type we take. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Bound on `client_assertion` before it is parsed: an RS256 assertion with an x5c chain stays well under it. */
export const MAX_CLIENT_ASSERTION_CHARS = 8192;

/**
 * Signature algorithms an assertion may use (docs/client-authentication.md "private_key_jwt"):
 * asymmetric only, so no `none` and no HMAC keyed with a public key (RFC 8725 §2.1, §3.1).
 */
export const CLIENT_ASSERTION_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** How far the client's clock may be off ours, for `exp`, `nbf` and `iat`. */
export const ASSERTION_CLOCK_SKEW_SECONDS = 15;

/** An assertion may be valid for at most this long from now: its `jti` is stored that long (RFC 7523 §3 item 4, 7). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/**
 * The two request members of RFC 7521 §4.2 for the endpoints' request schemas: each a string,
 * bounded (so the schema documents them and refuses an oversized one before anything parses it);
 * `presentedAssertion` checks what they say.
 */
export const CLIENT_ASSERTION_PARAMS = {
  client_assertion: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.maxLength(MAX_CLIENT_ASSERTION_CHARS, `must be at most ${MAX_CLIENT_ASSERTION_CHARS} characters`),
    ),
  ),
  client_assertion_type: v.optional(v.pipe(v.string('must be a string'), v.maxLength(128, `must be ${JWT_BEARER_ASSERTION_TYPE}`))),
};

/** A `client_assertion` read from a request: its text and the client it names (unverified `sub`). */
export interface PresentedAssertion {
  assertion: string;
  clientId: string;
}

/**
 * Checks one assertion for one client at one endpoint: signature, claims, then its `jti` used
 * once. False for every failure (the caller answers one 401 whatever was wrong); a storage failure throws.
 */
export type ClientAssertionVerifier = (assertion: string, client: OAuthClient, endpoint: ClientAuthEndpoint) => Promise<boolean>;

/** The request members of RFC 7521 §4.2 (form or JSON body; a loose schema hands them over as sent). */
export interface AssertionFields {
  client_assertion?: unknown;
  client_assertion_type?: unknown;
}

/**
 * The assertion of a request, or undefined when it sends none. Malformed parameters are 400
 * invalid_request naming the field (RFC 6749 §5.2); an assertion that is no JWT, or names no
 * client in `sub`, is 401 invalid_client like every other authentication failure (RFC 7521 §4.2.1).
 * The assertion is bounded before anything reads it.
 */
export function presentedAssertion(body: AssertionFields): PresentedAssertion | undefined {
  const { client_assertion: assertion, client_assertion_type: type } = body;
  if (assertion === undefined && type === undefined) return undefined;
  if (type !== JWT_BEARER_ASSERTION_TYPE) {
    throw oauthError(400, 'invalid_request', `body.client_assertion_type: must be ${JWT_BEARER_ASSERTION_TYPE}.`);
  }
  if (typeof assertion !== 'string' || assertion.length === 0) {
    throw oauthError(400, 'invalid_request', 'body.client_assertion: is required with client_assertion_type.');
  }
  if (assertion.length > MAX_CLIENT_ASSERTION_CHARS) {
    throw oauthError(400, 'invalid_request', `body.client_assertion: must be at most ${MAX_CLIENT_ASSERTION_CHARS} characters.`);
  }
  const subject = unverifiedSubject(assertion);
  if (subject === undefined) throw assertionRefused();
  return { assertion, clientId: subject };
}

/**
 * RFC 6749 §5.2 invalid_client for an assertion that does not authenticate, one answer whatever
 * was wrong. No `WWW-Authenticate: Basic`: the client did not use Basic, and a challenge would
 * invite it to.
 */
export const assertionRefused = () => oauthError(401, 'invalid_client', 'Client authentication failed.');

/** The `sub` of a compact JWS, unverified: it only says which client to read; the check comes after. */
function unverifiedSubject(jwt: string): string | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    const sub = (payload as { sub?: unknown } | null)?.sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}
