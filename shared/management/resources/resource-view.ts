import type { ResourceRecord } from '../../records/resource-record.ts';
import { SealedSecret } from '../kit/sealed-secret.ts';

/**
 * A Resource as callers see it (spec §2.7): the spec's fields plus `tenant_id` (docs/contract.md §4), with
 * spec §2.4's `aggregations`. Storage fields (`scope_names`, `scope_holders`, `links_version`,
 * `version`) never appear. `signing_secret` is write-only (docs/contract.md §6): it appears only for callers
 * with `read:client_keys` and only while the algorithm is HS256, first as a SealedSecret that
 * `revealSecrets` opens once the page is known.
 */
export function resourceView(r: ResourceRecord, readsKeys: boolean): Record<string, unknown> {
  const m = r.resource_metadata;
  const showSecret = readsKeys && m.signing_algorithm === 'HS256' && m.signing_secret !== undefined;
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    resource_type: r.resource_type,
    resource_name: r.resource_name,
    ...(r.resource_description !== undefined ? { resource_description: r.resource_description } : {}),
    resource_metadata: {
      is_system: m.is_system,
      identifier_url: m.identifier_url,
      signing_algorithm: m.signing_algorithm,
      ...(showSecret ? { signing_secret: new SealedSecret(m.signing_secret!) } : {}),
      token_lifetime: m.token_lifetime,
      rbac_enabled: m.rbac_enabled,
      scopes_added: m.scopes_added,
      skip_consent_for_first_party: m.skip_consent_for_first_party,
    },
    app_metadata: r.app_metadata,
    aggregations: resourceAggregations(r),
    created_by: r.created_by,
    created_date: r.created_date,
    updated_by: r.updated_by,
    updated_date: r.updated_date,
  };
}

/**
 * Spec §2.4 resource aggregations: `{id, resource_id, scopes, clients, created_by, created_at,
 * updated_by, updated_at}`. The counts live on the resource item and change in the same
 * transaction as the scopes and links they count; there is no separate aggregation record, so its
 * `id` is the resource's and its audit fields are the resource's (docs/management-resources.md),
 * with `created_at`/`updated_at` named as spec §2.4 names them although the resource uses `_date`.
 */
export function resourceAggregations(r: ResourceRecord) {
  // Should the store start recording when the counts last moved, those stamps win (as for clients).
  const a = r.aggregations as ResourceRecord['aggregations'] & { updated_by?: string; updated_at?: string };
  return {
    id: r.id,
    resource_id: r.id,
    scopes: r.aggregations.scopes,
    clients: r.aggregations.clients,
    created_by: r.created_by,
    created_at: r.created_date,
    updated_by: a.updated_by ?? r.updated_by,
    updated_at: a.updated_at ?? r.updated_date,
  };
}
