import { listQuerySchema, userGroupsCollection, userPermissionsCollection } from '../../lists/index.ts';

/** Query schemas of the RBAC lists, built once per container (docs/lists.md §9). */
export const userPermissionListQuery = listQuerySchema(userPermissionsCollection);
export const userGroupListQuery = listQuerySchema(userGroupsCollection);
