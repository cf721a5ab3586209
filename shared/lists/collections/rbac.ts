import { defineCollection } from '../collection-spec.ts';

/**
 * `GET /users/{user_id}/permissions` (docs/contract.md §6, §7.6): one item per (resource, scope) the user
 * effectively holds, with its `sources`. There is no link item behind an effective permission, so
 * `id` is the scope's id (scope ids are unique across resources, so it names the item); ordered by
 * resource, then scope.
 */
export const userPermissionsCollection = defineCollection({
  name: 'user-permissions',
  attributes: { id: 'uuid', tenant_id: 'uuid', user_id: 'uuid', resource_id: 'uuid', scope_id: 'uuid', sources: 'array' },
  children: ['resource_data', 'scope_data'],
  defaultSort: 'resource_id:asc',
  keyOrder: ['id'],
});

/**
 * `GET /users/{user_id}/groups` (docs/contract.md §7.6): every group the user is in, directly or through
 * nesting, once (`direct: true` when it is a direct group, also if inherited as well). `id` is the
 * group's id; in group id (creation) order.
 */
export const userGroupsCollection = defineCollection({
  name: 'user-groups',
  attributes: { id: 'uuid', tenant_id: 'uuid', user_id: 'uuid', group_id: 'uuid', direct: 'boolean' },
  children: ['group_data'],
  defaultSort: 'id:asc',
});
