import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /clients` (spec §2.2). */
export const clientsCollection = defineCollection({
  name: 'clients',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    client_type: 'string',
    client_name: 'string',
    // Projectable but never a filter or sort key: `q=(client_secret=guess)` would be an oracle
    // that lets a `read:clients` caller test secrets it is not allowed to see.
    client_secret: { type: 'string', filterable: false, sortable: false },
    client_secret_expires_at: 'timestamp',
    client_description: 'string',
    client_metadata: 'object',
    app_metadata: 'array',
    is_public: 'boolean',
    is_first_party: 'boolean',
    is_global: 'boolean',
    aggregations: 'object',
    ...AUDIT_FIELDS,
  },
  children: ['resources', 'permissions'],
  defaultSort: 'created_at:asc',
});
