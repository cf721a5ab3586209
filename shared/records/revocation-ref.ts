import { createHash } from 'node:crypto';

/**
 * What a revocation is bound to (docs/contract.md §8 "Revocation is bound"): the token's `jti`, what
 * verified it, and the client it was issued to. A token can therefore only ever revoke itself:
 * a token forged with the `jti` of another client's token (by someone who holds an HS256
 * Resource's secret) is verified by that Resource, not by the key that signed the victim's token,
 * so its revocation is another entry, and it never matches the victim's token.
 *
 * `verifier` is `key:{kid}` for tokens of the service keys (the kid is the key's RFC 7638
 * thumbprint, so it names exactly one key) and `resource:{tenant_id}:{aud}` for HS256 tokens: the
 * Resource whose secret verified it, named as the verification chose it (identifier_url is unique
 * per tenant). Both come from the token itself, so the entry's key is known before verification
 * and the introspection path can read it in its one BatchGetItem (docs/tokens.md "Hot path").
 */
export interface RevocationRef {
  readonly jti: string;
  readonly clientId: string;
  readonly verifier: string;
}

/**
 * The binding of a token from its header and payload (verified, or unverified when it only
 * chooses what to read). Undefined when the token lacks what it needs: such a token never verifies.
 */
export function revocationRef(
  header: { alg?: unknown; kid?: unknown },
  claims: { jti?: unknown; client_id?: unknown; tenant_id?: unknown; aud?: unknown },
): RevocationRef | undefined {
  const { jti, client_id: clientId, tenant_id: tenantId, aud } = claims;
  if (typeof jti !== 'string' || typeof clientId !== 'string') return undefined;
  if (header.alg === 'HS256') {
    return typeof tenantId === 'string' && typeof aud === 'string' ? { jti, clientId, verifier: `resource:${tenantId}:${aud}` } : undefined;
  }
  return typeof header.kid === 'string' ? { jti, clientId, verifier: `key:${header.kid}` } : undefined;
}

/** A fixed-length, key-safe name of the verifier (an `aud` may be long and hold any character). */
export const verifierDigest = (ref: RevocationRef): string => createHash('sha256').update(ref.verifier).digest('base64url');

/** Verified by an HS256 Resource's secret (not by a service key). */
export const verifiedByResource = (ref: RevocationRef): boolean => ref.verifier.startsWith('resource:');

/** One string per binding, for caches. */
export const refString = (ref: RevocationRef): string => `${ref.jti}\n${ref.verifier}\n${ref.clientId}`;
