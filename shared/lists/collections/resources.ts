import { defineCollection } from '../collection-spec.ts';

/** `GET /resources` (spec §2.7): this record keeps the spec's `_date` names. */
export const resourcesCollection = defineCollection({
  name: 'resources',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    resource_type: 'string',
    resource_name: 'string',
    resource_description: 'string',
    resource_metadata: 'object',
    app_metadata: 'array',
    aggregations: 'object',
    created_by: 'uuid',
    created_date: 'timestamp',
    updated_by: 'uuid',
    updated_date: 'timestamp',
  },
  children: ['scopes', 'clients'],
  defaultSort: 'created_date:asc',
});
