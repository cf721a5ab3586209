import { defineCollection } from '../collection-spec.ts';
import { AUDIT_FIELDS } from './audit.ts';

/** `GET /groups` (docs/contract.md §6 Group). */
export const groupsCollection = defineCollection({
  name: 'groups',
  attributes: { id: 'uuid', tenant_id: 'uuid', group_name: 'string', group_description: 'string', aggregations: 'object', ...AUDIT_FIELDS },
});

/** `GET /groups/{group_id}/members`: group-member links, `user_data` under `expand=all`. */
export const groupMembersCollection = defineCollection({
  name: 'group-members',
  attributes: { id: 'uuid', tenant_id: 'uuid', group_id: 'uuid', user_id: 'uuid', ...AUDIT_FIELDS },
  children: ['user_data'],
});

/** `GET /groups/{group_id}/roles`: group-role links, `role_data` under `expand=all`. */
export const groupRolesCollection = defineCollection({
  name: 'group-roles',
  attributes: { id: 'uuid', tenant_id: 'uuid', group_id: 'uuid', role_id: 'uuid', ...AUDIT_FIELDS },
  children: ['role_data'],
});

/** `GET /groups/{group_id}/groups` (docs/contract.md §7.6): nested-group links, `group_data` (the child) under `expand=all`. */
export const nestedGroupsCollection = defineCollection({
  name: 'nested-groups',
  attributes: { id: 'uuid', tenant_id: 'uuid', parent_group_id: 'uuid', group_id: 'uuid', ...AUDIT_FIELDS },
  children: ['group_data'],
});
