import type { RbacRecordReads } from '../rbac/effective-permissions.ts';
import type { IdTokenSigningAlg, TokenEndpointAuthMethod } from '../records/client-record.ts';
import type { UserRecord } from '../records/user-record.ts';

/**
 * The token path's records as the layers above it read them (docs/architecture.md): OAuth builds
 * them (shared/wiring/token-path/), management reads them through `PrincipalReads` only.
 */

/** What the OAuth endpoints need to know of a client (built from the stored Client record). */
export interface OAuthClient {
  id: string;
  tenant_id: string;
  is_public: boolean;
  is_global: boolean;
  grant_types: readonly string[];
  /** SHA-256 of the secret (confidential clients only). */
  secret_hash: string | undefined;
  client_secret_expires_at: string | null | undefined;
  /** Resources authorized to the client (Client Resources). */
  resources: ReadonlySet<string>;
  /** Scope ids granted per resource id (Client Permissions). */
  grants: ReadonlyMap<string, ReadonlySet<string>>;
  /** `client_metadata.refresh_token` (spec 2.3): lifetime of the refresh tokens issued to it. */
  refresh_token: { expiration_enabled: boolean; expiration_lifetime: number };
  /** `client_metadata.id_token.expiration_lifetime` (seconds). */
  id_token_lifetime: number;
  /** `client_metadata.urls.redirect_uris`: `/authorize` matches `redirect_uri` against them exactly (docs/contract.md §7.4). */
  redirect_uris: readonly string[];
  /** Consent may be skipped for first-party clients (docs/contract.md §7.4). */
  is_first_party: boolean;
  /** `client_metadata.token_endpoint_auth_method`; undefined: the defaults (docs/client-authentication.md). */
  token_endpoint_auth_method: TokenEndpointAuthMethod | undefined;
  /** `client_metadata.jwks` (inline public keys for `private_key_jwt`). */
  jwks: { keys: Record<string, unknown>[] } | undefined;
  /** `client_metadata.jwks_uri`. */
  jwks_uri: string | undefined;
  /** `client_metadata.id_token_signed_response_alg`, RS256 when absent (OIDC Registration §2). */
  id_token_signed_response_alg: IdTokenSigningAlg;
  /** `client_metadata.require_pushed_authorization_requests` (RFC 9126 §6). */
  require_pushed_authorization_requests: boolean;
  /** `client_metadata.dpop_bound_access_tokens` (RFC 9449 §5.2). */
  dpop_bound_access_tokens: boolean;
}

/** What minting an access token for a Resource needs (spec 2.7 resource_metadata). */
export interface TokenResource {
  id: string;
  tenant_id: string;
  identifier_url: string;
  signing_algorithm: 'ES256' | 'RS256' | 'HS256';
  /** HS256 only, already unsealed. */
  signing_secret: string | undefined;
  token_lifetime: number;
  rbac_enabled: boolean;
  /** The management API: shared by every tenant (docs/contract.md §4). */
  is_system: boolean;
  /** Scope id → scope name. */
  scope_names: Readonly<Record<string, string>>;
}

/**
 * What management reads of a caller through the token path's 1 s record caches (docs/tokens.md
 * "Hot path and caching"): its client, the management API, its user and their RBAC records.
 */
export interface PrincipalReads {
  findClient(clientId: string): Promise<OAuthClient | undefined>;
  findResource(tenantId: string, identifierUrl: string): Promise<TokenResource | undefined>;
  findUser(userId: string): Promise<UserRecord | undefined>;
  managementAudience: string;
  rbac: RbacRecordReads;
}

/**
 * A token acts for a user when its `sub` is not its client (client_credentials tokens carry
 * `sub = client_id`; both are UUIDs and a user id never equals a client id).
 */
export const isUserToken = (claims: { sub?: unknown; client_id?: unknown }): boolean =>
  typeof claims.sub === 'string' && claims.sub !== claims.client_id;
