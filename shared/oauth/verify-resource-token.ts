import { createHash } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import { CACHES } from '../observability/service-metrics.ts';
import { revocationRef } from '../records/revocation-ref.ts';
import { jsonPart } from '../tokens/compact-jws.ts';
import { type AccessTokenClaims, checkIssuedAt, InvalidAccessToken, verifyAccessToken } from '../tokens/verify-access-token.ts';
import type { OAuthDeps, VerifiedToken } from './oauth-deps.ts';
import { isUserToken } from './user-token-state.ts';

/** A token whose signature and claims verified, and what its revocation is bound to. */
export type { VerifiedToken } from './oauth-deps.ts';

/** `ref` of a verified token; a verified token always has what it takes (required claims, kid or aud). */
function verified(header: { alg?: unknown; kid?: unknown }, claims: AccessTokenClaims): VerifiedToken {
  const ref = revocationRef(header, claims);
  if (!ref) throw new InvalidAccessToken('no revocation binding');
  return { claims, ref };
}

/**
 * Verifies an HS256 access token minted for a Resource with its own `signing_secret`
 * (docs/contract.md §5). The unverified `aud` and `tenant_id` only select which secret to try; the
 * signature, `typ`, `iss`, `aud`, `exp`, `nbf` and `iat` are then checked as for our other tokens.
 * Returns undefined when the token is not HS256 (the caller uses the service keys instead).
 */
export async function verifyResourceToken(token: string, deps: OAuthDeps): Promise<VerifiedToken | undefined> {
  let alg: string | undefined;
  let aud: unknown;
  let tenantId: unknown;
  try {
    // Only the header's alg decides the path; read without jose's decoder (a few µs of every
    // uncached introspection, docs/benchmarks.md "Item 9, round 3").
    alg = jsonPart(token.slice(0, token.indexOf('.'))).alg as string | undefined;
    if (alg !== 'HS256') return undefined;
    ({ aud, tenant_id: tenantId } = decodeJwt(token));
  } catch {
    throw new InvalidAccessToken('malformed token');
  }
  if (typeof aud !== 'string' || typeof tenantId !== 'string') throw new InvalidAccessToken('no audience');
  const resource = await deps.findResource(tenantId, aud);
  if (resource?.signing_algorithm !== 'HS256' || !resource.signing_secret) throw new InvalidAccessToken('unknown resource');
  try {
    const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(resource.signing_secret), {
      algorithms: ['HS256'],
      typ: 'at+jwt',
      issuer: deps.issuer,
      audience: aud,
      currentDate: deps.now(),
      requiredClaims: ['sub', 'jti', 'exp', 'iat', 'client_id'],
    });
    const claims = checkIssuedAt(payload as AccessTokenClaims, deps.now());
    // The secret may have been chosen by a tenant: the token only counts for a client of that
    // same tenant (a forged client_id of another tenant gets nothing) and, for a client's own
    // token, one still authorized on the resource, as client_credentials required. A user token
    // needs no link: the user's permissions decide it, not the client's (docs/contract.md §7.1), so the
    // grants mint it for any Resource of the tenant, and it must introspect and revoke as minted.
    const client = await deps.findClient(claims.client_id);
    if (
      !client ||
      client.tenant_id !== resource.tenant_id ||
      (!isUserToken(claims) && !client.resources.has(resource.id)) ||
      claims.tenant_id !== resource.tenant_id
    ) {
      throw new InvalidAccessToken('token not bound to a client of the resource');
    }
    return verified(protectedHeader, claims);
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) throw new InvalidAccessToken(err.message, { cause: err });
    throw err;
  }
}

/**
 * Any access token this service issued: HS256 with a Resource's secret, or ES256/RS256 with our
 * keys. An ES256/RS256 token whose signature verified once is remembered by its SHA-256 for a few minutes
 * (`deps.verifiedTokens`): resource servers introspect the same token on every request, and the
 * signature check is most of an introspection's CPU. Time claims are still checked on every use.
 */
export async function verifyIssuedToken(token: string, deps: OAuthDeps): Promise<VerifiedToken> {
  const digest = createHash('sha256').update(token).digest('base64url');
  const known = deps.verifiedTokens.get(digest);
  deps.metrics.count(known ? 'CacheHit' : 'CacheMiss', CACHES.verified_token);
  if (known) {
    const now = deps.now().getTime() / 1000;
    const { exp, nbf } = known.claims;
    if (exp <= now || (nbf !== undefined && nbf > now)) throw new InvalidAccessToken('expired');
    return known;
  }
  const hs256 = await verifyResourceToken(token, deps);
  if (hs256) return hs256; // not remembered: its validity follows the Resource's secret and links
  const { claims, header } = await verifyAccessToken(token, deps);
  const result = verified(header, claims);
  deps.verifiedTokens.set(digest, result);
  return result;
}
