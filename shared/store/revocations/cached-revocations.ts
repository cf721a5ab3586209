import { refString } from '../../records/revocation-ref.ts';
import { TtlCache } from '../../ttl-cache.ts';
import { type RevocationsRepository, revocationKeys, revokes } from './revocations-repository.ts';

/**
 * The revocation list as the introspection hot path reads it (docs/tokens.md "Revocation"):
 * - a revocation made in this container is seen by it at once;
 * - "not revoked" answers are trusted for `ttlMs` (default 1 s), so a resource server that
 *   introspects the same token on every request costs one read per token per second, not one per
 *   request; a revocation made elsewhere is seen here within that time;
 * - "revoked" answers are kept (a token is never un-revoked).
 * Answers are cached per binding (jti, verifier, client), as they are stored.
 * `ttlMs = 0` reads the table on every check. Storage errors still propagate (fail closed).
 */
export function cachedRevocations(inner: RevocationsRepository, ttlMs: number, clock: () => number = Date.now): RevocationsRepository {
  if (ttlMs <= 0) return inner;
  const notRevoked = new TtlCache<true>(ttlMs, 50_000, clock);
  const revoked = new TtlCache<true>(24 * 3600 * 1000, 50_000, clock);
  const known = (key: string) => revoked.get(key) || notRevoked.get(key);
  return {
    feed: {
      wanted: (ref) => (known(refString(ref)) ? [] : revocationKeys(ref)),
      offer(ref, found) {
        (revokes(ref, revocationKeys(ref).map(found), new Date(clock())) ? revoked : notRevoked).set(refString(ref), true);
      },
    },
    async revoke(ref, expiresAt) {
      const outcome = await inner.revoke(ref, expiresAt);
      if (outcome === 'revoked') {
        notRevoked.delete(refString(ref));
        revoked.set(refString(ref), true);
      }
      return outcome;
    },
    async isRevoked(ref) {
      const key = refString(ref);
      if (revoked.get(key)) return true;
      if (notRevoked.get(key)) return false;
      const isRevoked = await inner.isRevoked(ref);
      (isRevoked ? revoked : notRevoked).set(key, true);
      return isRevoked;
    },
  };
}
