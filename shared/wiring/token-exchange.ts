import { resolveFederatedUser } from '../oauth/federation/resolve-federated-user.ts';
import type { TokenExchangeDeps } from '../oauth/grants/token-exchange-deps.ts';
import type { IdentityProviderRecord } from '../records/identity-provider-record.ts';
import { identityProviderReads } from '../store/federation/identity-providers-repository.ts';
import { userIdentitiesRepository } from '../store/users/user-identities-repository.ts';
import { userReads } from '../store/users/user-reads.ts';
import { TtlCache } from '../ttl-cache.ts';
import { providerKeyCache } from './federation.ts';
import { perRuntime } from './per-runtime.ts';

/** Provider lookups a container keeps (names and issuers asked for, found or not). */
const MAX_CACHED_LOOKUPS = 1000;

/**
 * The token-exchange grant's own dependencies (docs/federation.md "Token exchange"), once per
 * container, for the /token handler only: the tenant's identity providers, the container's one
 * provider key cache (shared with federated login), and the federated-user use case that finds or
 * creates the user of an external identity.
 *
 * Provider lookups go through the token path's record cache lifetime (`RECORD_CACHE_TTL_SECONDS`,
 * 1 s; docs/tokens.md "Hot path and caching"): a warm exchange reads no provider, and a change to a
 * provider (disabled, new audience) is seen by every container within that second, as a change
 * to a client or a Resource is. A miss is remembered too, so made-up names cost one read each per
 * second at most; the number of entries is bounded.
 */
export const tokenExchangeDeps = /* @__PURE__ */ perRuntime((runtime): TokenExchangeDeps => {
  const { db, config, now } = runtime;
  // The federated-user use case's reads without the users repository's write and delete paths:
  // less code in the exchange's chunk, and none of it in the chunks every cold start loads.
  const users = { users: userReads(db, config.tableName, now), identities: userIdentitiesRepository(db, config.tableName, now) };
  const reads = identityProviderReads(runtime.db, runtime.config.tableName);
  const clock = () => runtime.now().getTime();
  const ttl = runtime.config.recordCacheTtlMs;
  const byName = new TtlCache<IdentityProviderRecord | null>(ttl, MAX_CACHED_LOOKUPS, clock);
  const byIssuer = new TtlCache<IdentityProviderRecord[]>(ttl, MAX_CACHED_LOOKUPS, clock);
  return {
    providers: {
      byName: async (tenantId, name) =>
        (await byName.getOrLoad(`${tenantId}\u0000${name}`, async () => (await reads.byName(tenantId, name)) ?? null)) ?? undefined,
      byIssuer: (tenantId, issuer) => byIssuer.getOrLoad(`${tenantId}\u0000${issuer}`, () => reads.byIssuer(tenantId, issuer)),
    },
    providerKeys: providerKeyCache(runtime),
    resolveUser: (provider, identity, actor) => resolveFederatedUser(users, provider, identity, actor),
    multiTenant: runtime.config.multiTenant,
  };
});
