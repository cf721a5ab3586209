import { resolveFederatedUser } from '../oauth/federation/resolve-federated-user.ts';
import type { TokenExchangeDeps } from '../oauth/grants/token-exchange-deps.ts';
import { identityProviderReads } from '../store/federation/identity-providers-repository.ts';
import { federatedUserDeps } from './federated-user.ts';
import { providerKeyCache } from './federation.ts';
import { perRuntime } from './per-runtime.ts';

/**
 * The token-exchange grant's own dependencies (docs/federation.md "Token exchange"), once per
 * container, for the /token handler only: the tenant's identity providers, the container's one
 * provider key cache (shared with federated login), and the federated-user use case that finds or
 * creates the user of an external identity.
 */
export const tokenExchangeDeps = /* @__PURE__ */ perRuntime((runtime): TokenExchangeDeps => {
  const users = federatedUserDeps(runtime);
  return {
    providers: identityProviderReads(runtime.db, runtime.config.tableName),
    providerKeys: providerKeyCache(runtime),
    resolveUser: (provider, identity, actor) => resolveFederatedUser(users, provider, identity, actor),
    multiTenant: runtime.config.multiTenant,
  };
});
