import type { ProviderKeys, ProviderSource } from '../../federation/provider-keys.ts';
import type { ProviderIdentity } from '../../federation/verify-provider-id-token.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import type { UserRecord } from '../../records/user-record.ts';

/**
 * What the token-exchange grant needs beyond the token path's `OAuthDeps` (docs/federation.md
 * "Token exchange"); built per container in shared/wiring/token-exchange.ts, for /token only.
 */
export interface TokenExchangeDeps {
  /** A tenant's identity providers (the identity-providers repository's reads). */
  providers: {
    byName(tenantId: string, providerName: string): Promise<IdentityProviderRecord | undefined>;
    byIssuer(tenantId: string, issuer: string): Promise<IdentityProviderRecord[]>;
  };
  /** The container's one provider key cache (shared/wiring/federation.ts). */
  providerKeys: { keysOf(source: ProviderSource): Promise<ProviderKeys> };
  /**
   * The user linked to (provider, identity.sub), else one created and linked in one transaction;
   * an email another user of the tenant has is 400 `invalid_request` (docs/contract.md §7.7).
   * Does not check `blocked`: the grant does.
   */
  resolveUser(provider: IdentityProviderRecord, identity: ProviderIdentity, actor: string): Promise<UserRecord>;
  /** docs/contract.md §4: multi-tenant mode honours a global client's `tenant_id` header. */
  multiTenant: boolean;
}
