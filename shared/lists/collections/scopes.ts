import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /resources/{resource_id}/scopes` (spec §2.8). */
export const scopesCollection = defineCollection({
  name: 'scopes',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    resource_id: 'uuid',
    scope_name: 'string',
    scope_description: 'string',
    ...AUDIT_FIELDS,
  },
});
