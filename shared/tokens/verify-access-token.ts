import { type JWTHeaderParameters, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { KeyStore } from '../keys/key-store.ts';

/** RFC 8725 §3.1: only the algorithms our own keys use; `none` and HS* can never verify here. */
export const ACCEPTED_ALGS = ['ES256', 'RS256'] as const;

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

/** API.md §8: how far in the future `iat` may lie (clock skew between issuer and verifier). */
export const IAT_LEEWAY_SECONDS = 60;

/**
 * API.md §8: a token "issued" more than a minute from now is inactive. jose checks `iat` only for
 * type; a token with a far-future `iat` can only come from someone holding the signing secret
 * (an HS256 Resource's) who wants it to look fresh for longer.
 */
export function checkIssuedAt(claims: AccessTokenClaims, now: Date): AccessTokenClaims {
  if (claims.iat > now.getTime() / 1000 + IAT_LEEWAY_SECONDS) throw new InvalidAccessToken('iat in the future');
  return claims;
}

/**
 * Verifies an access token issued by this service (RFC 9068 §4): signature by a published key of
 * ours (kid required, alg from the allow-list and equal to the key's), `typ: at+jwt`, `iss`, `exp`,
 * `nbf` and `iat` (checkIssuedAt) against the injected clock, and `aud` when an audience is required. Storage errors
 * propagate (fail closed, DESIGN.md §3.8); only an invalid token becomes InvalidAccessToken.
 */
export async function verifyAccessToken(
  token: string,
  deps: VerifyDeps,
  audience?: string,
): Promise<{ claims: AccessTokenClaims; header: JWTHeaderParameters }> {
  const resolveKey = async (header: JWTHeaderParameters) => {
    if (!header.kid) throw new InvalidAccessToken('no kid');
    const entry = await deps.keys.publicKey(header.kid);
    if (!entry || entry.alg !== header.alg) throw new InvalidAccessToken('unknown key');
    return entry.key;
  };
  try {
    const { payload, protectedHeader } = await jwtVerify(token, resolveKey, {
      algorithms: [...ACCEPTED_ALGS],
      typ: 'at+jwt',
      issuer: deps.issuer,
      ...(audience ? { audience } : {}),
      currentDate: deps.now(),
      requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
    });
    return { claims: checkIssuedAt(payload as AccessTokenClaims, deps.now()), header: protectedHeader };
  } catch (err) {
    if (err instanceof InvalidAccessToken || err instanceof joseErrors.JOSEError) {
      throw new InvalidAccessToken((err as Error).message, { cause: err });
    }
    throw err;
  }
}
