import {
  listQuerySchema,
  recordQuerySchema,
  roleMembersCollection,
  rolePermissionsCollection,
  rolesCollection,
  userRolesCollection,
} from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const roleRecordQuery = recordQuerySchema(rolesCollection);
export const roleListQuery = listQuerySchema(rolesCollection);
export const rolePermissionListQuery = listQuerySchema(rolePermissionsCollection);
export const roleMemberListQuery = listQuerySchema(roleMembersCollection);
export const userRoleListQuery = listQuerySchema(userRolesCollection);
