import { TtlCache } from '../cache/ttl-cache.ts';
import { keys } from './keys.ts';
import { isRevocation, type RevocationsRepository } from './revocations-repository.ts';

/**
 * The revocation list as the introspection hot path reads it (docs/tokens.md "Revocation"):
 * - a revocation made in this container is seen by it at once;
 * - "not revoked" answers are trusted for `ttlMs` (default 1 s), so a resource server that
 *   introspects the same token on every request costs one read per token per second, not one per
 *   request; a revocation made elsewhere is seen here within that time;
 * - "revoked" answers are kept (a token is never un-revoked).
 * `ttlMs = 0` reads the table on every check. Storage errors still propagate (fail closed).
 */
export function cachedRevocations(inner: RevocationsRepository, ttlMs: number, clock: () => number = Date.now): RevocationsRepository {
  if (ttlMs <= 0) return inner;
  const notRevoked = new TtlCache<true>(ttlMs, 50_000, clock);
  const revoked = new TtlCache<true>(24 * 3600 * 1000, 50_000, clock);
  return {
    feed: {
      wanted: (jti) => (revoked.get(jti) || notRevoked.get(jti) ? undefined : keys.revokedToken(jti)),
      offer(jti, item) {
        (isRevocation(item, new Date(clock())) ? revoked : notRevoked).set(jti, true);
      },
    },
    async revoke(jti, clientId, expiresAt) {
      await inner.revoke(jti, clientId, expiresAt);
      notRevoked.delete(jti);
      revoked.set(jti, true);
    },
    async isRevoked(jti) {
      if (revoked.get(jti)) return true;
      if (notRevoked.get(jti)) return false;
      const isRevoked = await inner.isRevoked(jti);
      (isRevoked ? revoked : notRevoked).set(jti, true);
      return isRevoked;
    },
  };
}
