import type { AuditFields, KeyValue } from './common.ts';

/** Spec §2.3; the inner fields of urls/oauth/saml/wsfed are open (spec: "not shown"). */
export interface ClientMetadata {
  /** Grants the client may use at `/token` (docs/contract.md §5.1): anything else is `unauthorized_client`. */
  grant_types: string[];
  /** `redirect_uris`, `post_logout_redirect_uris`, `allowed_origins`, ... (used by /authorize and /logout). */
  urls: Record<string, unknown>;
  refresh_token: { expiration_enabled: boolean; expiration_lifetime: number };
  id_token: { expiration_lifetime: number };
  oauth: Record<string, unknown>;
  saml: Record<string, unknown>;
  wsfed: Record<string, unknown>;
  // Client settings under their registered names (RFC 7591 §2, OIDC Registration §2, RFC 9126 §6,
  // RFC 9449 §5.2): each absent on a client that never set one, which keeps the defaults of
  // docs/client-authentication.md; `null` is what a PATCH stores to clear one.
  /** Absent: a confidential client may use `client_secret_basic` or `client_secret_post`; a public one `none`. */
  token_endpoint_auth_method?: TokenEndpointAuthMethod | null;
  /** The client's public keys for `private_key_jwt` (RFC 7517 JWK Set); never together with `jwks_uri`. */
  jwks?: { keys: Record<string, unknown>[] } | null;
  jwks_uri?: string | null;
  /** Absent: RS256 (OIDC Registration §2 default). */
  id_token_signed_response_alg?: IdTokenSigningAlg | null;
  /** Absent: false. */
  require_pushed_authorization_requests?: boolean | null;
  /** Absent: false. */
  dpop_bound_access_tokens?: boolean | null;
}

/** RFC 7591 §2 client authentication methods this service accepts at its client-authenticated endpoints. */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

/** Algorithms of the keys the service holds (shared/keys/), so the ones an ID token can be signed with. */
export const ID_TOKEN_SIGNING_ALGS = ['RS256', 'ES256'] as const;
export type IdTokenSigningAlg = (typeof ID_TOKEN_SIGNING_ALGS)[number];

/**
 * A Client (spec §2.2) as stored at `CLIENT#{id}` / `CLIENT` (GSI1 `TENANT#{t}#CLIENTS` / id).
 * Beyond the spec's fields it stores:
 * - `secret_hash`: SHA-256 (base64url) of the secret, what `/token` verifies against
 *   (shared/crypto/client-secret.ts); absent for public clients.
 * - `secret_sealed`: the secret encrypted with the SecretBox, opened only for `read:client_keys`
 *   callers and for the response of a secret change; absent for public clients.
 * - `is_default`: the Default Client made at bootstrap (docs/contract.md §4): never deleted (403).
 * - `aggregations`: counts of its resource links and permissions, kept exact by the link and
 *   permission transactions (never by PATCH).
 * - `links_version`: +1 per change of its links/permissions; optimistic lock of cascades.
 * - `token_grants`: resource id → { scope id: true } of its links and permissions, changed in the
 *   same transaction as every link and permission item, so `/token` reads one item, not the
 *   partition (docs/data-model.md pattern 1). `token_grants_version` is the `links_version` the
 *   copy reflects: every change moves both. A copy that is absent, or whose stamp differs (a
 *   writer that did not keep it, such as an older release), is not trusted: readers fall back to
 *   the partition until the bootstrap reconciliation rebuilds it.
 * - `version`: +1 per change of the editable fields (PATCH, secret change).
 */
export interface ClientRecord extends AuditFields {
  id: string;
  tenant_id: string;
  client_type: string;
  client_name: string;
  client_description?: string;
  client_metadata: ClientMetadata;
  app_metadata: KeyValue[];
  is_public: boolean;
  is_first_party: boolean;
  /** A global client may act on every tenant (docs/contract.md §4). */
  is_global: boolean;
  is_default: boolean;
  secret_hash?: string;
  secret_sealed?: string;
  /** ISO timestamp after which the secret no longer authenticates; null: never. */
  client_secret_expires_at: string | null;
  aggregations: { resources: number; permissions: number };
  token_grants?: TokenGrants;
  token_grants_version?: number;
  links_version: number;
  version: number;
}

/** Resource id → the granted scope ids (as map keys: DynamoDB updates map entries one by one). */
export type TokenGrants = Record<string, Record<string, true>>;

/** What a caller may set on create (spec §4.3 "Client create body"), after validation. */
export interface NewClient {
  /** Fixed id (bootstrap's DEFAULT_CLIENT_ID); otherwise a new UUIDv7. */
  id?: string;
  tenant_id: string;
  client_name: string;
  client_type?: string;
  client_description?: string;
  client_metadata?: Partial<ClientMetadata>;
  app_metadata?: KeyValue[];
  is_public?: boolean;
  is_first_party?: boolean;
  is_global?: boolean;
  /** Plaintext secret of a confidential client (hashed and sealed by the repository). */
  client_secret?: string;
  client_secret_expires_at?: string | null;
  /** Bootstrap only: marks the Default Client (unique through the `UNIQUE#DEFAULT_CLIENT` marker). */
  is_default?: boolean;
}

/** Spec §4.3 "Client update body" (client_type is not updatable). */
export interface ClientPatch {
  client_name?: string;
  client_description?: string;
  client_metadata?: Partial<{ [K in keyof ClientMetadata]: Partial<ClientMetadata[K]> | ClientMetadata[K] }>;
  app_metadata?: KeyValue[];
  is_public?: boolean;
  is_first_party?: boolean;
  is_global?: boolean;
  tenant_id?: string;
  client_secret_expires_at?: string | null;
}
