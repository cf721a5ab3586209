import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/**
 * `GET /users/{user_id}/identities` (docs/contract.md §6, §7.7 link records): a user's accounts at the
 * tenant's identity providers, `provider_data` (the provider, never its secret) under `expand=all`.
 */
export const userIdentitiesCollection = defineCollection({
  name: 'user-identities',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    user_id: 'uuid',
    provider_id: 'uuid',
    provider_user_id: 'string',
    ...AUDIT_FIELDS,
  },
  children: ['provider_data'],
});
