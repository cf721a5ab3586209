import {
  groupMembersCollection,
  groupRolesCollection,
  groupsCollection,
  listQuerySchema,
  nestedGroupsCollection,
  recordQuerySchema,
} from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const groupRecordQuery = recordQuerySchema(groupsCollection);
export const groupListQuery = listQuerySchema(groupsCollection);
export const groupMembersListQuery = listQuerySchema(groupMembersCollection);
export const groupRolesListQuery = listQuerySchema(groupRolesCollection);
export const nestedGroupsListQuery = listQuerySchema(nestedGroupsCollection);
