import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import * as v from 'valibot';
import { ProviderError, ProviderTokenError } from './federation-errors.ts';
import { MAX_ID_TOKEN_LENGTH } from './id-token-length.ts';
import type { ProviderKeys } from './provider-keys.ts';

/**
 * Verifies an ID token an external provider issued (OIDC Core §3.1.3.7), for token exchange
 * (RFC 8693, the subject token) and federated login: the signature against that provider's keys
 * only, `iss` the provider's issuer, `aud` the client id we are registered under, `exp`, `nbf` and
 * `iat` with a small clock tolerance, and the algorithm on an allow-list of asymmetric ones.
 * docs/federation.md "Reading a provider" says why each bound is what it is.
 */

/**
 * Asymmetric JWS algorithms only (RFC 7518 §3.3-§3.5, RFC 8037): `none` has no signature, and an
 * HS* token "signed" with a provider's public key as the HMAC secret is the classic key-confusion
 * forgery; jose's JWK Set refuses symmetric algorithms too, the allow-list refuses them first.
 */
export const PROVIDER_ID_TOKEN_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export type ProviderIdTokenAlg = (typeof PROVIDER_ID_TOKEN_ALGS)[number];

/** Seconds of clock skew between us and the provider allowed on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_S = 60;

export interface ProviderTokenCheck {
  /** The client id we are registered under at the provider (or the configured audience). */
  audience: string;
  /** A narrower allow-list (the provider's configured algorithms); never wider than PROVIDER_ID_TOKEN_ALGS. */
  algorithms?: readonly ProviderIdTokenAlg[];
  /** Federated login: the `nonce` sent in the authentication request (OIDC Core §3.1.3.7 (11)); the token must carry it. */
  nonce?: string;
  /** The verifier's clock (tests). */
  now?: Date;
}

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max));

/** The claims federation uses (OIDC Core §5.1); `email_verified` also as the string some providers send. */
const IdentityClaims = v.object({
  sub: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  email: v.optional(Text(320)),
  email_verified: v.optional(
    v.union([
      v.boolean(),
      v.pipe(
        v.picklist(['true', 'false']),
        v.transform((s) => s === 'true'),
      ),
    ]),
  ),
  name: v.optional(Text(256)),
  given_name: v.optional(Text(256)),
  family_name: v.optional(Text(256)),
  picture: v.optional(Text(2048)),
});

export type ProviderIdentity = v.InferOutput<typeof IdentityClaims> & { iss: string; aud: string | string[]; exp: number; iat: number };

/** The identity in a provider's ID token, or a `ProviderTokenError` (the token) / `ProviderError` (the provider). */
export async function verifyProviderIdToken(token: string, keys: ProviderKeys, check: ProviderTokenCheck): Promise<ProviderIdentity> {
  if (token.length > MAX_ID_TOKEN_LENGTH)
    throw new ProviderTokenError('malformed', `The ID token exceeds ${MAX_ID_TOKEN_LENGTH} characters.`);
  const algorithms = allowedAlgorithms(keys, check);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch (cause) {
    throw new ProviderTokenError('malformed', 'The ID token is not a JWS.', { cause });
  }
  // Before any key is looked up: an algorithm we refuse never costs a JWKS read.
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) {
    throw new ProviderTokenError('alg_not_allowed', `The ID token's algorithm ${String(header.alg)} is not allowed.`);
  }
  // An ID token is a plain JWT (OIDC Core §2); an access token (RFC 9068 at+jwt) or a logout token is not one.
  if (header.typ !== undefined && !/^(application\/)?jwt$/i.test(String(header.typ))) {
    throw new ProviderTokenError('malformed', `The token's typ ${String(header.typ)} is not an ID token's.`);
  }
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys.getKey, {
      issuer: keys.issuer,
      audience: check.audience,
      algorithms,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['sub', 'exp', 'iat'],
      ...(check.now ? { currentDate: check.now } : {}),
    }));
  } catch (error) {
    throw tokenError(error);
  }
  const now = Math.floor((check.now ?? new Date()).getTime() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > now + CLOCK_TOLERANCE_S) {
    throw new ProviderTokenError('not_yet_valid', 'The ID token was issued in the future (iat).');
  }
  // OIDC Core §3.1.3.7 (4), (5): with azp present, it must be our client id.
  if (payload.azp !== undefined && payload.azp !== check.audience) {
    throw new ProviderTokenError('audience', 'The ID token was issued to another party (azp).');
  }
  if (check.nonce !== undefined && payload.nonce !== check.nonce) {
    throw new ProviderTokenError('claims', "The ID token's nonce is not the one of this login.");
  }
  const claims = v.safeParse(IdentityClaims, payload);
  if (!claims.success) {
    const field = claims.issues[0].path?.map((p) => String(p.key)).join('.') ?? 'claims';
    throw new ProviderTokenError('claims', `The ID token's ${field} claim is invalid.`);
  }
  return { ...claims.output, iss: keys.issuer, aud: payload.aud as string | string[], exp: payload.exp as number, iat: payload.iat };
}

/** Ours, narrowed by the check's and by what the discovery document says the provider signs with. */
function allowedAlgorithms(keys: ProviderKeys, check: ProviderTokenCheck): string[] {
  const advertised = keys.metadata?.id_token_signing_alg_values_supported;
  return PROVIDER_ID_TOKEN_ALGS.filter(
    (alg) => (check.algorithms ?? PROVIDER_ID_TOKEN_ALGS).includes(alg) && (!advertised || advertised.includes(alg)),
  );
}

function tokenError(error: unknown): Error {
  if (error instanceof ProviderError) return error;
  if (error instanceof errors.JWKSTimeout)
    return new ProviderError('timeout', 'The provider did not answer for its keys in time.', { cause: error });
  if (error instanceof errors.JWTExpired) return new ProviderTokenError('expired', 'The ID token has expired.', { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss')
      return new ProviderTokenError('issuer', 'The ID token was not issued by this provider (iss).', { cause: error });
    if (error.claim === 'aud') return new ProviderTokenError('audience', 'The ID token is not for this client (aud).', { cause: error });
    if (error.claim === 'nbf') return new ProviderTokenError('not_yet_valid', 'The ID token is not valid yet (nbf).', { cause: error });
    return new ProviderTokenError('claims', `The ID token's ${error.claim} claim is invalid.`, { cause: error });
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new ProviderTokenError('alg_not_allowed', "The ID token's algorithm is not allowed.", { cause: error });
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return new ProviderTokenError('unknown_key', "The ID token's key is not among the provider's keys.", { cause: error });
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new ProviderTokenError('unknown_key', "The ID token's key header matches several of the provider's keys.", { cause: error });
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new ProviderTokenError('bad_signature', "The ID token's signature is invalid.", { cause: error });
  if (error instanceof errors.JOSEError) return new ProviderTokenError('malformed', 'The ID token is malformed.', { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}
