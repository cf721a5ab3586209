import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /roles` (docs/contract.md §6). */
export const rolesCollection = defineCollection({
  name: 'roles',
  attributes: {
    id: 'uuid',
    tenant_id: 'uuid',
    role_name: 'string',
    role_description: 'string',
    aggregations: 'object',
    ...AUDIT_FIELDS,
  },
});

/** `GET /roles/{role_id}/permissions` (docs/contract.md §6 link records). */
export const rolePermissionsCollection = defineCollection({
  name: 'role-permissions',
  attributes: { id: 'uuid', tenant_id: 'uuid', role_id: 'uuid', resource_id: 'uuid', scope_id: 'uuid', ...AUDIT_FIELDS },
  children: ['resource_data', 'scope_data'],
});

const memberAttributes = { id: 'uuid', tenant_id: 'uuid', role_id: 'uuid', user_id: 'uuid', ...AUDIT_FIELDS } as const;

/** `GET /roles/{role_id}/members`: member links, `user_data` under `expand=all`. */
export const roleMembersCollection = defineCollection({ name: 'role-members', attributes: memberAttributes, children: ['user_data'] });

/** `GET /users/{user_id}/roles`: the same link items seen from the user, `role_data` under `expand=all`. */
export const userRolesCollection = defineCollection({ name: 'user-roles', attributes: memberAttributes, children: ['role_data'] });
