import { boundedJsonGetter, CONNECT_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from '../federation/fetch-bounded.ts';
import { ProviderKeyCache } from '../federation/provider-keys.ts';
import { clientAssertionVerifier } from '../oauth/client-auth/verify-client-assertion.ts';
import { oneTimeIdsRepository } from '../store/sessions/one-time-ids-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** A client's key set is a handful of public keys: 64 KB leaves room for certificate chains (`x5c`). */
const CLIENT_JWKS_MAX_BYTES = 64 * 1024;
/** As many keys as an inline `jwks` may hold (client-metadata-schema.ts `MAX_CLIENT_JWKS`, not imported: no management code in the token bundle). */
const CLIENT_JWKS_MAX_KEYS = 10;

/**
 * The container's `private_key_jwt` check (docs/client-authentication.md "private_key_jwt"), loaded
 * with the first client assertion (`OAuthDeps.clientAssertions`), so a token request that uses a
 * secret loads none of it. Keys at a client's `jwks_uri` are read as federation reads a provider's
 * (shared/federation/provider-keys.ts): through the bounded fetch (https only, plain http to a
 * loopback host only in local mode, public addresses only, connect and total timeouts, a size
 * bound), at most 10 keys, cached per container (re-read after 10 minutes, and on an
 * unknown `kid` at most once per 30 s), with a back-off after a failed read. The cache is the
 * clients' own, apart from the identity providers' one: a client's URL never evicts a provider.
 */
export const clientAssertions = /* @__PURE__ */ perRuntime((runtime) => {
  const { allowLoopbackHttp } = runtime.config.federation;
  const fetchJson = boundedJsonGetter({ allowLoopbackHttp, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: TOTAL_TIMEOUT_MS });
  const cache = new ProviderKeyCache({
    fetchJson: (url, limits) => fetchJson(url, { maxBytes: Math.min(limits.maxBytes, CLIENT_JWKS_MAX_BYTES) }),
    allowLoopbackHttp,
    maxKeysPerSet: CLIENT_JWKS_MAX_KEYS,
    totalTimeoutMs: TOTAL_TIMEOUT_MS,
    clock: () => runtime.now().getTime(),
  });
  return clientAssertionVerifier({
    issuer: runtime.config.issuer,
    now: runtime.now,
    oneTimeIds: oneTimeIdsRepository(runtime.db, runtime.config.tableName),
    // The URL is the key set's identity: it is both the "issuer" and the JWKS URL of the cache entry.
    remoteKeys: async (jwksUri) => (await cache.keysOf({ issuer: jwksUri, jwksUri })).getKey,
  });
});
