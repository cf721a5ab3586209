import type { AuditFields } from './common.ts';

/**
 * A tenant's external OpenID provider (docs/contract.md §6 and §7.7, docs/federation.md). Stored at
 * `TENANT#{t}` / `IDP#{id}`, found by issuer through GSI2 `IDP_ISSUER#{t}#{issuer}`; `provider_name`
 * is unique within its tenant (marker `UNIQUE#IDP_NAME#{t}#{name}`).
 */
export interface IdentityProviderRecord extends AuditFields {
  id: string;
  tenant_id: string;
  provider_name: string;
  provider_type: 'oidc';
  /** Compared exactly with the ID token's `iss` and the discovery document's `issuer`. */
  issuer: string;
  jwks_uri?: string;
  discovery_url?: string;
  /** Our client id at the provider: the default audience of its ID tokens. */
  client_id: string;
  /** The client secret at the provider, sealed like every stored secret; never answered. */
  client_secret_sealed?: string;
  scopes: string[];
  /** What an ID token's `aud` must contain; absent: `client_id`. */
  audience?: string;
  enabled: boolean;
  version: number;
}

/** A provider as the API answers it: never the secret, sealed or not. */
export type IdentityProviderView = Omit<IdentityProviderRecord, 'client_secret_sealed' | 'version'>;
