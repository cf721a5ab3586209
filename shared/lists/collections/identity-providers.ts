import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /tenants/{tenant_id}/identity-providers` (docs/contract.md §6, docs/federation.md "Identity providers"). */
export const identityProvidersCollection = defineCollection({
  name: 'identity-providers',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    provider_name: 'string',
    provider_type: 'string',
    issuer: 'string',
    jwks_uri: 'string',
    discovery_url: 'string',
    client_id: 'string',
    has_client_secret: 'boolean',
    scopes: 'array',
    audience: 'string',
    enabled: 'boolean',
    ...AUDIT_FIELDS,
  },
});
