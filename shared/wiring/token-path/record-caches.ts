import type { OAuthClient, TokenResource } from '../../oauth/oauth-deps.ts';
import { cacheCounter } from '../../observability/service-metrics.ts';
import type { Runtime } from '../../runtime.ts';
import type { StoredRefreshToken } from '../../store/sessions/refresh-tokens-repository.ts';
import { type Lookahead, TtlCache } from '../../ttl-cache.ts';

/**
 * Where a request decides what to fold into the one read it makes, a record about to expire
 * counts as stale (ttl-cache.ts `readAheadMs`): read now, it lasts the request; left, it could run
 * out half-way and cost the request a read call of its own.
 */
export const AHEAD: Lookahead = { readAhead: true };

/** A verified signature is remembered this long (time claims are re-checked on every use). */
export const VERIFIED_TOKEN_TTL_MS = 5 * 60 * 1000;

/**
 * The last tenant seen for a client, kept well past the record TTL: it only chooses which tenant's
 * identifier marker the token path reads together with the client. A wrong guess (the client moved
 * tenants) costs one more read, never a wrong answer.
 */
const TENANT_HINT_TTL_MS = 60 * 60 * 1000;

/** The key of a Resource in `resources`: one tenant's identifier URL. */
export const resourceKey = (tenantId: string, identifierUrl: string) => `${tenantId} ${identifierUrl}`;

/**
 * The token path's per-container caches (docs/tokens.md "Hot path and caching"). Client and
 * resource misses are cached too (`null`), so a flood of unknown ids costs one read per id per TTL.
 */
export interface TokenPathCaches {
  clients: TtlCache<OAuthClient | null>;
  resources: TtlCache<TokenResource | null>;
  /** The last tenant seen per client id (`TENANT_HINT_TTL_MS`). */
  tenantHints: TtlCache<string>;
  /**
   * A sealed secret always opens to the same plaintext, so it is opened (one KMS Decrypt in AWS)
   * once per container, not once per cache period.
   */
  openedSecrets: TtlCache<string>;
  /**
   * Refresh tokens a `preload` read along with a stale client or key state, by token hash, for the
   * same request's `findRefreshToken` to take (once). An entry a request left behind (its client
   * failed authentication) is at most one record TTL old, as every cached record is; the rotation
   * transaction re-checks the token, its family and its user whatever was read.
   */
  preloadedRefreshTokens: TtlCache<StoredRefreshToken | null>;
}

export function tokenPathCaches(runtime: Runtime): TokenPathCaches {
  const { config, now } = runtime;
  const clock = () => now().getTime();
  const countRecord = cacheCounter(runtime.metrics, 'record');
  return {
    clients: new TtlCache<OAuthClient | null>(config.recordCacheTtlMs, 10_000, clock, countRecord),
    resources: new TtlCache<TokenResource | null>(config.recordCacheTtlMs, 10_000, clock, countRecord),
    tenantHints: new TtlCache<string>(TENANT_HINT_TTL_MS, 10_000, clock),
    openedSecrets: new TtlCache<string>(Number.POSITIVE_INFINITY, 1_000),
    preloadedRefreshTokens: new TtlCache<StoredRefreshToken | null>(config.recordCacheTtlMs, 10_000, clock),
  };
}
