import { boundedJsonGetter, CONNECT_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from '../federation/fetch-bounded.ts';
import { ProviderKeyCache } from '../federation/provider-keys.ts';
import { perRuntime } from './per-runtime.ts';

/**
 * The container's one `ProviderKeyCache` (docs/federation.md "Key cache"): token exchange and
 * federated login share it, so a provider's discovery document and JWKS are read once per
 * container, not once per request or per use. Reads go through the bounded fetch (URL policy,
 * public addresses only, connect and total timeouts, size bounds); plain http to a loopback
 * address only where the stage allows it (`config.federation`: local mode).
 */
export const providerKeyCache = /* @__PURE__ */ perRuntime((runtime) => {
  const { allowLoopbackHttp } = runtime.config.federation;
  return new ProviderKeyCache({
    fetchJson: boundedJsonGetter({ allowLoopbackHttp, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: TOTAL_TIMEOUT_MS }),
    allowLoopbackHttp,
    totalTimeoutMs: TOTAL_TIMEOUT_MS,
    clock: () => runtime.now().getTime(),
  });
});
