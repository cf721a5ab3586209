import type { ClientMetadata, ClientRecord } from '../../records/client-record.ts';
import type { AuditFields } from '../../records/common.ts';
import { SealedSecret } from '../kit/sealed-secret.ts';

/**
 * How the client's secret appears in a view: `plaintext` (create and change-secret responses,
 * single reads by a `read:client_keys` caller), `sealed` (a list page for such a caller: opened
 * by `revealClientSecrets` only for the records returned), or not at all.
 */
export type SecretExposure = { kind: 'none' } | { kind: 'plaintext'; secret: string } | { kind: 'sealed' };

export const NO_SECRET: SecretExposure = { kind: 'none' };
export const SEALED: SecretExposure = { kind: 'sealed' };

/**
 * A Client as callers see it (spec §2.2, plus `tenant_id` per docs/contract.md §4) with spec §2.4
 * aggregations. Storage fields never appear: `secret_hash`, `secret_sealed`, `links_version`,
 * `version`, `is_default`. A public client has no secret at all (RFC 6749 §2.1), so it never
 * shows one; `client_secret_expires_at` is always present (null = never expires).
 */
export function clientView(c: ClientRecord, exposure: SecretExposure = NO_SECRET): Record<string, unknown> {
  const secret = c.is_public
    ? undefined
    : exposure.kind === 'plaintext'
      ? exposure.secret
      : exposure.kind === 'sealed' && c.secret_sealed
        ? new SealedSecret(c.secret_sealed)
        : undefined;
  return {
    id: c.id,
    tenant_id: c.tenant_id,
    client_type: c.client_type,
    client_name: c.client_name,
    ...(secret !== undefined ? { client_secret: secret } : {}),
    client_secret_expires_at: c.is_public ? null : c.client_secret_expires_at,
    ...(c.client_description !== undefined ? { client_description: c.client_description } : {}),
    client_metadata: orderedMetadata(c.client_metadata),
    app_metadata: c.app_metadata,
    is_public: c.is_public,
    is_first_party: c.is_first_party,
    is_global: c.is_global,
    aggregations: clientAggregations(c),
    created_by: c.created_by,
    created_at: c.created_at,
    updated_by: c.updated_by,
    updated_at: c.updated_at,
  };
}

/**
 * spec §2.3's order. DynamoDB returns map attributes in no particular order; a stable order keeps
 * responses diffable (extra members of the open objects follow).
 */
function orderedMetadata(m: ClientMetadata): ClientMetadata {
  const { grant_types, urls, refresh_token, id_token, oauth, saml, wsfed, ...rest } = m;
  return {
    grant_types,
    urls,
    refresh_token: { expiration_enabled: refresh_token.expiration_enabled, expiration_lifetime: refresh_token.expiration_lifetime },
    id_token: { expiration_lifetime: id_token.expiration_lifetime },
    oauth,
    saml,
    wsfed,
    // A setting cleared with null is as if never set: not shown.
    ...Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null)),
  };
}

/**
 * Spec §2.4 client aggregations `{id, client_id, resources, permissions, created_by, created_at,
 * updated_by, updated_at}`. The counts live on the client item and move in the same transaction
 * as the links and permissions they count; there is no separate aggregation record, so its `id`
 * is the client's. Its audit fields are the client's unless the store records when the counts
 * last moved (`aggregations.updated_at` / `updated_by`, when present).
 */
export function clientAggregations(c: ClientRecord) {
  const a = c.aggregations as ClientRecord['aggregations'] & Partial<Pick<AuditFields, 'updated_at' | 'updated_by'>>;
  return {
    id: c.id,
    client_id: c.id,
    resources: a.resources,
    permissions: a.permissions,
    created_by: c.created_by,
    created_at: c.created_at,
    updated_by: a.updated_by ?? c.updated_by,
    updated_at: a.updated_at ?? c.updated_at,
  };
}
