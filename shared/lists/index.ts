/**
 * The list machinery of the management API (docs/lists.md): parse the parameters once per
 * request, hand a source and the cursor key to `listCollection`, return the envelope.
 */
export { defineCollection, type CollectionSpec, type AttributeType, type SortKey } from './collection-spec.ts';
export { LIST_LIMITS, type ListParams, type RecordParams, type FilterTerm } from './list-params.ts';
export { parseListParams, type QueryParameters, type MultiValueQueryParameters } from './parse-list-params.ts';
export { parseRecordParams } from './parse-record-params.ts';
export { listQuerySchema, recordQuerySchema } from './list-query-schema.ts';
export { listCollection, type ListEnvelope, type ListCollectionInput } from './list-collection.ts';
export { arraySource, mapSource, type CollectionSource, type PageEntry, type PageRequest, type StartKey } from './collection-source.ts';
export { pagedSource, type PagedSourceOptions, type RepositoryPage, type RepositoryPageRequest } from './paged-source.ts';
export { shapeItem } from './shape-item.ts';
export { clientsCollection } from './collections/clients.ts';
export { resourcesCollection } from './collections/resources.ts';
export { scopesCollection } from './collections/scopes.ts';
export { clientResourcesCollection, clientPermissionsCollection, resourceClientsCollection } from './collections/links.ts';
