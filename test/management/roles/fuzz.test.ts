import { randomUUID } from 'node:crypto';
import { listQuerySchema, rolesCollection } from '#shared/lists/index.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { CreateRoleBody, RoleMembersBody, RolePath, UpdateRoleBody, UserRolesBody } from '#shared/management/roles/role-body-schemas.ts';
import { roleMemberListQuery, rolePermissionListQuery, roleRecordQuery, userRoleListQuery } from '#shared/management/roles/role-request.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Roles endpoints and the user-side role links (docs/contract.md §6): whatever the
 * body, query, path and headers, never a 5xx, and every 4xx a JSON `{code, message}`.
 */
const R = `${M}/roles`;
const U = `${M}/users`;
const roles = { collection: rolesCollection, query: roleRecordQuery };
const permission = (resourceId: string, scopes: string[]) => ({ permissions: [{ resource_id: resourceId, scopes }] });

const routes: FuzzRoute[] = [
  { route: `GET ${R}`, collection: rolesCollection, query: listQuerySchema(rolesCollection) },
  {
    route: `POST ${R}`,
    body: CreateRoleBody,
    ...roles,
    fitting: () => [{ role_name: `fit-${randomUUID()}` }, { role_name: `fit-${randomUUID()}`, role_description: 'Fit' }],
  },
  { route: `GET ${R}/{role_id}`, path: RolePath, ...roles },
  ...(['PATCH', 'PUT'] as const).map((method) => ({
    route: `${method} ${R}/{role_id}`,
    path: RolePath,
    body: UpdateRoleBody,
    ...roles,
    fitting: () => [{ role_name: `renamed-${randomUUID()}` }, { role_description: null }],
  })),
  { route: `DELETE ${R}/{role_id}`, path: RolePath },
  { route: `GET ${R}/{role_id}/permissions`, path: RolePath, query: rolePermissionListQuery },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${R}/{role_id}/permissions`,
    path: RolePath,
    body: PermissionsBody,
    fitting: (s: Seeds) => [
      permission(s.resourceId, [s.scopeId]),
      permission(s.resourceId, [s.scopeId, s.otherScopeId]),
      permission(s.resourceId, [s.scopeId, s.scopeId]),
    ],
  })),
  { route: `GET ${R}/{role_id}/members`, path: RolePath, query: roleMemberListQuery },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${R}/{role_id}/members`,
    path: RolePath,
    body: RoleMembersBody,
    fitting: (s: Seeds) => [{ users: [s.userId] }, { users: [s.userId, s.userId] }],
  })),
  { route: `GET ${U}/{user_id}/roles`, path: UserPath, query: userRoleListQuery },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${U}/{user_id}/roles`,
    path: UserPath,
    body: UserRolesBody,
    fitting: (s: Seeds) => [{ roles: [s.roleId] }, { roles: [s.roleId, s.roleId] }],
  })),
];

fuzzArea('fuzz: Roles endpoints never answer 5xx to client input', {
  table: 'fuzz-roles',
  salt: 300,
  area: (r) => r.path.startsWith(R) || r.path === `${U}/{user_id}/roles`,
  routes,
});
