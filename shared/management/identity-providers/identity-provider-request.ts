import { identityProvidersCollection } from '../../lists/collections/identity-providers.ts';
import { listQuerySchema, recordQuerySchema } from '../../lists/index.ts';

/** Query schemas of this group, built once per container (docs/lists.md §9). */
export const identityProviderRecordQuery = recordQuerySchema(identityProvidersCollection);
export const identityProviderListQuery = listQuerySchema(identityProvidersCollection);
