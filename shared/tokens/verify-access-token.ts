import type { JWTHeaderParameters, JWTPayload } from 'jose';
import type { KeyStore } from '../keys/key-store.ts';
import { type CompactJws, hasValidSignature, jsonPart, parseCompactJws } from './compact-jws.ts';

/** RFC 8725 §3.1: only the algorithms our own keys use; `none` and HS* can never verify here. */
export const ACCEPTED_ALGS = ['ES256', 'RS256'] as const;
const isAccepted = (alg: unknown): alg is (typeof ACCEPTED_ALGS)[number] => ACCEPTED_ALGS.includes(alg as never);

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  client_id: string;
  scope?: string;
  jti: string;
  exp: number;
  iat: number;
  tenant_id?: string;
}

export interface VerifyDeps {
  keys: KeyStore;
  issuer: string;
  now: () => Date;
}

/** The token is not one of ours, or no longer valid: the caller decides how to answer. */
export class InvalidAccessToken extends Error {}

/** docs/contract.md §8: how far in the future `iat` may lie (clock skew between issuer and verifier). */
export const IAT_LEEWAY_SECONDS = 60;

/** 9999-12-31T23:59:59Z: the last NumericDate that is a date (`toISOString` throws beyond year 275760). */
const MAX_NUMERIC_DATE = 253_402_300_799;

/** A `jti` that can name a revocation entry: bounded and printable, as the ids we mint are (UUIDs). */
const STORABLE_JTI = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * docs/contract.md §8: a token "issued" more than a minute from now is inactive. jose checks `iat` only for
 * type; a token with a far-future `iat` can only come from someone holding the signing secret
 * (an HS256 Resource's) who wants it to look fresh for longer. The same someone could put any
 * number in `exp`, `nbf` or `iat`, and any string in `jti`: a time that is no date (the
 * introspection answer renders each as one) or a `jti` no revocation entry can be keyed by makes
 * the token inactive, never a 500 (a review sent `exp: 1e15` and a 3,000-character `jti`).
 */
export function checkIssuedAt(claims: AccessTokenClaims, now: Date): AccessTokenClaims {
  for (const time of [claims.exp, claims.iat, claims.nbf]) {
    if (time !== undefined && !(Number.isFinite(time) && time >= 0 && time <= MAX_NUMERIC_DATE)) {
      throw new InvalidAccessToken('a time claim out of range');
    }
  }
  if (!STORABLE_JTI.test(claims.jti)) throw new InvalidAccessToken('jti out of bounds');
  if (claims.iat > now.getTime() / 1000 + IAT_LEEWAY_SECONDS) throw new InvalidAccessToken('iat in the future');
  return claims;
}

/** RFC 9068 §4 `typ`; compared as jose and RFC 7515 §4.1.9 do: case-insensitive, `application/` optional. */
const normalizeTyp = (typ: string) => {
  const lower = typ.toLowerCase();
  return lower.includes('/') ? lower : `application/${lower}`;
};
const AT_JWT = normalizeTyp('at+jwt');
const REQUIRED_CLAIMS = ['sub', 'jti', 'exp', 'iat', 'client_id', 'iss'] as const;

/**
 * The claims checks of RFC 9068 §4 and RFC 7519 §4.1, as jose's `jwtVerify` made them: required
 * claims present, `iss` exact, `aud` (string or array) holding the audience when one is required,
 * `exp`, `nbf` and `iat` numbers, `exp` passed or `nbf` ahead refuse it (no leeway), then
 * checkIssuedAt. `sub`, `jti` and `client_id` must be strings (jose left their type unchecked).
 */
function checkClaims(claims: Record<string, unknown>, deps: VerifyDeps, audience: string | undefined): AccessTokenClaims {
  for (const claim of REQUIRED_CLAIMS) if (!Object.hasOwn(claims, claim)) throw new InvalidAccessToken(`missing required "${claim}" claim`);
  if (claims.iss !== deps.issuer) throw new InvalidAccessToken('unexpected "iss" claim value');
  if (audience !== undefined) {
    const { aud } = claims;
    if (!(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) throw new InvalidAccessToken('unexpected "aud" claim value');
  }
  if (typeof claims.sub !== 'string' || typeof claims.jti !== 'string' || typeof claims.client_id !== 'string') {
    throw new InvalidAccessToken('"sub", "jti" and "client_id" must be strings');
  }
  const { exp, iat, nbf } = claims;
  if (typeof exp !== 'number' || typeof iat !== 'number' || (nbf !== undefined && typeof nbf !== 'number')) {
    throw new InvalidAccessToken('"exp", "iat" and "nbf" must be numbers');
  }
  const now = deps.now();
  const seconds = Math.floor(now.getTime() / 1000);
  if (nbf !== undefined && nbf > seconds) throw new InvalidAccessToken('"nbf" claim timestamp check failed');
  if (exp <= seconds) throw new InvalidAccessToken('"exp" claim timestamp check failed');
  return checkIssuedAt(claims as AccessTokenClaims, now);
}

/**
 * Verifies an access token issued by this service (RFC 9068 §4): signature by a published key of
 * ours (kid required, alg from the allow-list and equal to the key's), `typ: at+jwt`, `iss`, `exp`,
 * `nbf` and `iat` (checkIssuedAt) against the injected clock, and `aud` when an audience is required.
 * A `crit` header is refused (RFC 7515 §4.1.11: we understand no extension). The signature is
 * checked synchronously (shared/tokens/compact-jws.ts says why not jose). Storage errors propagate
 * (fail closed, docs/design.md §3.8); only an invalid token becomes InvalidAccessToken.
 */
export async function verifyAccessToken(
  token: string,
  deps: VerifyDeps,
  audience?: string,
): Promise<{ claims: AccessTokenClaims; header: JWTHeaderParameters }> {
  let jws: CompactJws;
  try {
    jws = parseCompactJws(token);
  } catch (err) {
    throw new InvalidAccessToken((err as Error).message, { cause: err });
  }
  const { header } = jws;
  const alg = header.alg;
  if (!isAccepted(alg)) throw new InvalidAccessToken('"alg" (Algorithm) Header Parameter value not allowed');
  if (header.crit !== undefined) throw new InvalidAccessToken('"crit" Header Parameter not supported');
  if (typeof header.kid !== 'string') throw new InvalidAccessToken('no kid');
  const entry = await deps.keys.publicKey(header.kid);
  if (!entry || entry.alg !== alg) throw new InvalidAccessToken('unknown key');
  if (!hasValidSignature(jws, alg, entry.key)) throw new InvalidAccessToken('signature verification failed');
  if (typeof header.typ !== 'string' || normalizeTyp(header.typ) !== AT_JWT)
    throw new InvalidAccessToken('unexpected "typ" JWT header value');
  let claims: Record<string, unknown>;
  try {
    claims = jsonPart(jws.payloadPart);
  } catch (err) {
    throw new InvalidAccessToken((err as Error).message, { cause: err });
  }
  return { claims: checkClaims(claims, deps, audience), header: header as JWTHeaderParameters };
}
