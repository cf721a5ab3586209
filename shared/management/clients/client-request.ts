import {
  clientPermissionsCollection,
  clientResourcesCollection,
  clientsCollection,
  listQuerySchema,
  recordQuerySchema,
} from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const clientRecordQuery = recordQuerySchema(clientsCollection);
export const clientListQuery = listQuerySchema(clientsCollection);
export const clientResourcesListQuery = listQuerySchema(clientResourcesCollection);
export const clientPermissionsListQuery = listQuerySchema(clientPermissionsCollection);
