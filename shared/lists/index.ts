/**
 * The list machinery of the management API (docs/lists.md): parse the parameters once per
 * request, hand a source and the cursor key to `listCollection`, return the envelope.
 */

export { arraySource, type CollectionSource, mapSource, type PageEntry, type PageRequest, type StartKey } from './collection-source.ts';
export { type AttributeType, type CollectionSpec, defineCollection, type SortKey } from './collection-spec.ts';
export { clientsCollection } from './collections/clients.ts';
export { consentsCollection } from './collections/consents.ts';
export { groupMembersCollection, groupRolesCollection, groupsCollection, nestedGroupsCollection } from './collections/groups.ts';
export { clientPermissionsCollection, clientResourcesCollection, resourceClientsCollection } from './collections/links.ts';
export { userGroupsCollection, userPermissionsCollection } from './collections/rbac.ts';
export { resourcesCollection } from './collections/resources.ts';
export { roleMembersCollection, rolePermissionsCollection, rolesCollection, userRolesCollection } from './collections/roles.ts';
export { scopesCollection } from './collections/scopes.ts';
export { userIdentitiesCollection } from './collections/user-identities.ts';
export { usersCollection } from './collections/users.ts';
export { type ListCollectionInput, type ListEnvelope, listCollection } from './list-collection.ts';
export { type FilterTerm, LIST_LIMITS, type ListParams, type RecordParams } from './list-params.ts';
export { listQuerySchema, recordQuerySchema } from './list-query-schema.ts';
export { type PagedSourceOptions, pagedSource, type RepositoryPage, type RepositoryPageRequest } from './paged-source.ts';
export { type MultiValueQueryParameters, parseListParams, type QueryParameters } from './parse-list-params.ts';
export { parseRecordParams } from './parse-record-params.ts';
export { shapeItem } from './shape-item.ts';
