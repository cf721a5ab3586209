import { identityProvidersCollection } from '../../lists/collections/identity-providers.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import { defineEntity, type View } from '../kit/entity.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';

const ATTRIBUTES = [
  'id',
  'tenant_id',
  'provider_name',
  'provider_type',
  'issuer',
  'jwks_uri',
  'discovery_url',
  'client_id',
  'scopes',
  'audience',
  'enabled',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
] as const satisfies readonly (keyof IdentityProviderRecord)[];

/**
 * A provider as callers see it (IdentityProviderView): the client secret is write-only, so neither it
 * nor its sealed form is ever answered; `has_client_secret` says whether one is set
 * (docs/federation.md "Identity providers").
 */
export const identityProviderEntity = defineEntity<IdentityProviderRecord, IdentityProviderDeps>({
  noun: 'Identity provider',
  collection: identityProvidersCollection,
  view: (record) => {
    const out: View = {};
    for (const a of ATTRIBUTES) if (record[a] !== undefined) out[a] = record[a];
    out.has_client_secret = record.client_secret_sealed !== undefined;
    return out;
  },
});
