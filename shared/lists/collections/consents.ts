import { defineCollection } from '../collection-spec.ts';

/** `GET /users/{user_id}/grants` (docs/contract.md §6): the consents a user gave, one per client and Resource. */
export const consentsCollection = defineCollection({
  name: 'user-grants',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    user_id: 'uuid',
    client_id: 'uuid',
    resource_id: 'uuid',
    scopes: 'array',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
});
