import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/**
 * Link lists. Their `*_data` far-end records are children: present only with `expand=all`.
 * A link repository whose key order is not the link id (e.g. SK = far-end id) must not offer
 * `page()`, so these lists then always take the general path (docs/lists.md).
 */

/** `GET /clients/{client_id}/resources` (spec §2.5). */
export const clientResourcesCollection = defineCollection({
  name: 'client-resources',
  attributes: { id: 'uuid', tenant_id: 'uuid', client_id: 'uuid', resource_id: 'uuid', ...AUDIT_FIELDS },
  children: ['resource_data'],
});

/** `GET /clients/{client_id}/permissions` (spec §2.6). */
export const clientPermissionsCollection = defineCollection({
  name: 'client-permissions',
  attributes: { id: 'uuid', tenant_id: 'uuid', client_id: 'uuid', resource_id: 'uuid', scope_id: 'uuid', ...AUDIT_FIELDS },
  children: ['resource_data', 'scope_data'],
});

/** `GET /resources/{resource_id}/clients` (spec §2.9). */
export const resourceClientsCollection = defineCollection({
  name: 'resource-clients',
  attributes: { id: 'uuid', tenant_id: 'uuid', resource_id: 'uuid', client_id: 'uuid', authorized: 'boolean', ...AUDIT_FIELDS },
  children: ['client_data'],
});
