import type { KeyValue } from './common.ts';

export type SigningAlgorithm = 'ES256' | 'RS256' | 'HS256';

/** Spec §2.7 resource_metadata. */
export interface ResourceMetadata {
  /** The management API itself (docs/contract.md §4): cannot be deleted or lose its scopes. */
  is_system: boolean;
  /** The `aud` of its tokens, the `audience`/`resource` a client asks for; unique across all tenants (docs/management-resources.md). */
  identifier_url: string;
  signing_algorithm: SigningAlgorithm;
  /** HS256 only: the shared secret, SEALED with the SecretBox (open it before use). */
  signing_secret?: string;
  /** Access-token lifetime in seconds. */
  token_lifetime: number;
  /** Put `permissions` in access tokens (docs/contract.md §5.1). */
  rbac_enabled: boolean;
  scopes_added: boolean;
  skip_consent_for_first_party: boolean;
}

/**
 * A Resource (spec §2.7) at `RESOURCE#{id}` / `RESOURCE` (GSI1 `TENANT#{t}#RESOURCES` / id). What
 * a token needs of it is copied onto its identifier marker (shared/store/token-path/resource-token-view.ts).
 * - `scope_names`: scope id → scope name, changed in the same transaction as every scope
 *   create/rename/delete (and copied into the marker's view).
 * - `scope_holders`: scope id → number of permission items on it (clients, later roles and
 *   users); lets a scope delete check that the index it read its holders from is complete.
 * - `aggregations`: counts of its scopes and client links.
 * - `links_version` / `version`: as on ClientRecord.
 * This record uses the spec's `created_date`/`updated_date`, not `_at`.
 */
export interface ResourceRecord {
  id: string;
  tenant_id: string;
  resource_type: string;
  resource_name: string;
  resource_description?: string;
  resource_metadata: ResourceMetadata;
  app_metadata: KeyValue[];
  scope_names: Record<string, string>;
  scope_holders: Record<string, number>;
  aggregations: { scopes: number; clients: number };
  links_version: number;
  version: number;
  created_by: string;
  created_date: string;
  updated_by: string;
  updated_date: string;
}

/** Resource create body (spec §4.3) after validation; `signing_secret` is PLAINTEXT here. */
export interface NewResource {
  id?: string;
  tenant_id: string;
  resource_type: string;
  resource_name: string;
  resource_description?: string;
  resource_metadata: Partial<ResourceMetadata> & { identifier_url: string };
  app_metadata?: KeyValue[];
}

/** Resource update body (spec §4.3); `resource_metadata.signing_secret` is PLAINTEXT here. */
export interface ResourcePatch {
  resource_name?: string;
  resource_description?: string;
  resource_metadata?: Partial<ResourceMetadata>;
  app_metadata?: KeyValue[];
}

/** Bounds of a Resource's and its Scopes' fields (validated in management, relied on by the store's keys). */
export const RESOURCE_LIMITS = {
  resourceName: 200,
  resourceType: 64,
  description: 1000,
  /** Also bounds the marker key `UNIQUE#RESOURCE_ID_URL#{t}#{url}` well inside DynamoDB's 2 KB key limit. */
  identifierUrl: 1000,
  /** RFC 7518 §3.2: an HS256 key must be at least as long as the hash output (256 bits). */
  minSecretBytes: 32,
  maxSecretBytes: 1024,
  /** Seconds. One minute to one day; the default (3600) is `RESOURCE_METADATA_DEFAULTS`. */
  minTokenLifetime: 60,
  maxTokenLifetime: 86_400,
  scopeName: 255,
  scopeDescription: 500,
} as const;

/**
 * Defaults the spec leaves open, set to what Auth0 users know for an API: ES256 (docs/contract.md §5.1),
 * one hour tokens, RBAC off, consent skipped for first-party clients.
 */
export const RESOURCE_METADATA_DEFAULTS: Omit<ResourceMetadata, 'identifier_url'> = {
  is_system: false,
  signing_algorithm: 'ES256',
  token_lifetime: 3600,
  rbac_enabled: false,
  scopes_added: false,
  skip_consent_for_first_party: true,
};
