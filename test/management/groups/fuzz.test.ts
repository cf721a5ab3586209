import { randomUUID } from 'node:crypto';
import {
  groupMembersCollection,
  groupRolesCollection,
  groupsCollection,
  listQuerySchema,
  nestedGroupsCollection,
} from '#shared/lists/index.ts';
import {
  CreateGroupBody,
  GroupPath,
  GroupsBody,
  RolesBody,
  UpdateGroupBody,
  UserGroupsPath,
  UsersBody,
} from '#shared/management/groups/group-body-schemas.ts';
import { groupRecordQuery } from '#shared/management/groups/group-request.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Groups endpoints (docs/contract.md §6, §7.6) and the user side of group
 * membership: whatever the body, query, path parameters and headers, never a 5xx, and every 4xx a
 * JSON `{code, message}`.
 */
const G = `${M}/groups`;
const groups = { collection: groupsCollection, query: groupRecordQuery };

const routes: FuzzRoute[] = [
  { route: `GET ${G}`, collection: groupsCollection, query: listQuerySchema(groupsCollection) },
  {
    route: `POST ${G}`,
    body: CreateGroupBody,
    ...groups,
    fitting: () => [{ group_name: `fit ${randomUUID()}` }, { group_name: `fit ${randomUUID()}`, group_description: 'd' }],
  },
  { route: `GET ${G}/{group_id}`, path: GroupPath, ...groups },
  ...(['PATCH', 'PUT'] as const).map((method) => ({
    route: `${method} ${G}/{group_id}`,
    path: GroupPath,
    body: UpdateGroupBody,
    ...groups,
    fitting: () => [{ group_name: `renamed ${randomUUID()}` }, { group_description: null }],
  })),
  { route: `DELETE ${G}/{group_id}`, path: GroupPath },
  {
    route: `GET ${G}/{group_id}/groups`,
    path: GroupPath,
    collection: nestedGroupsCollection,
    query: listQuerySchema(nestedGroupsCollection),
  },
  { route: `POST ${G}/{group_id}/groups`, path: GroupPath, body: GroupsBody },
  { route: `DELETE ${G}/{group_id}/groups`, path: GroupPath, body: GroupsBody },
  {
    route: `GET ${G}/{group_id}/members`,
    path: GroupPath,
    collection: groupMembersCollection,
    query: listQuerySchema(groupMembersCollection),
  },
  { route: `POST ${G}/{group_id}/members`, path: GroupPath, body: UsersBody, fitting: (s: Seeds) => [{ users: [s.userId] }] },
  { route: `DELETE ${G}/{group_id}/members`, path: GroupPath, body: UsersBody, fitting: (s: Seeds) => [{ users: [s.userId] }] },
  { route: `GET ${G}/{group_id}/roles`, path: GroupPath, collection: groupRolesCollection, query: listQuerySchema(groupRolesCollection) },
  { route: `POST ${G}/{group_id}/roles`, path: GroupPath, body: RolesBody },
  { route: `DELETE ${G}/{group_id}/roles`, path: GroupPath, body: RolesBody },
  { route: `POST ${M}/users/{user_id}/groups`, path: UserGroupsPath, body: GroupsBody },
  { route: `DELETE ${M}/users/{user_id}/groups`, path: UserGroupsPath, body: GroupsBody },
];

fuzzArea('fuzz: Groups endpoints never answer 5xx to client input', {
  table: 'fuzz-groups',
  salt: 300,
  // GET /users/{user_id}/groups (direct and inherited) is fuzzed with the RBAC reads (fuzz-management-rbac.test.ts).
  area: (r) => r.path.startsWith(G) || (r.path === `${M}/users/{user_id}/groups` && r.method !== 'GET'),
  routes,
});
