import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /tenants` (docs/contract.md §6, docs/tenants.md). */
export const tenantsCollection = defineCollection({
  name: 'tenants',
  attributes: {
    id: 'uuid',
    tenant_name: 'string',
    tenant_description: 'string',
    tenant_metadata: 'array',
    is_default: 'boolean',
    ...AUDIT_FIELDS,
  },
});
