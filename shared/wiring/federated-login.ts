/**
 * Federated login's dependencies (`/authorize?connection=`, the login page's provider links,
 * `/login/callback`; docs/federation.md "Federated login"), built from the runtime once per container.
 */
import { secureCookies } from '../browser/cookies.ts';
import type { FederatedLoginDeps } from '../browser/federated-login.ts';
import { CONNECT_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from '../federation/fetch-bounded.ts';
import { boundedFormPoster } from '../federation/post-bounded.ts';
import { resolveFederatedUser } from '../oauth/federation/resolve-federated-user.ts';
import { SYSTEM_ACTOR_ID } from '../records/common.ts';
import type { Runtime } from '../runtime.ts';
import { identityProviderReads } from '../store/federation/identity-providers-repository.ts';
import { federatedLoginsRepository } from '../store/sessions/federated-logins-repository.ts';
import { federatedUserDeps } from './federated-user.ts';
import { providerKeyCache } from './federation.ts';
import { perRuntime } from './per-runtime.ts';
import { oauthDeps } from './token-path/token-path-records.ts';

export const federatedLoginDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): FederatedLoginDeps => {
  const { db, config, now, secretBox } = runtime;
  const { allowLoopbackHttp } = config.federation;
  return {
    providers: identityProviderReads(db, config.tableName),
    providerKeys: (source) => providerKeyCache(runtime).keysOf(source),
    // The token endpoint is held to the discovery and JWKS reads' rules (docs/federation.md).
    postForm: boundedFormPoster({ allowLoopbackHttp, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: TOTAL_TIMEOUT_MS }),
    logins: federatedLoginsRepository(db, config.tableName, now),
    openSecret: (sealed) => secretBox.open(sealed),
    // The service creates the user on the provider's word: no caller, the nil UUID (records/common.ts).
    resolveUser: (provider, identity) => resolveFederatedUser(federatedUserDeps(runtime), provider, identity, SYSTEM_ACTOR_ID),
    findClient: (id) => oauthDeps(runtime).findClient(id),
    urlPolicy: { allowLoopbackHttp },
    issuer: config.issuer,
    secureCookies: secureCookies(config.issuer),
  };
});
