import { listQuerySchema, userGroupsCollection, userPermissionsCollection } from '#shared/lists/index.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { type FuzzRoute, fuzzArea, M } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the effective-RBAC reads (docs/contract.md §6, §7.6; docs/rbac.md): whatever the
 * query, path parameters and headers, never a 5xx, and every 4xx a JSON `{code, message}`.
 */
const U = `${M}/users`;
const READS = [`${U}/{user_id}/groups`, `${U}/{user_id}/permissions`];

const routes: FuzzRoute[] = [
  { route: `GET ${U}/{user_id}/groups`, path: UserPath, collection: userGroupsCollection, query: listQuerySchema(userGroupsCollection) },
  {
    route: `GET ${U}/{user_id}/permissions`,
    path: UserPath,
    collection: userPermissionsCollection,
    query: listQuerySchema(userPermissionsCollection),
  },
];

fuzzArea('fuzz: effective RBAC reads never answer 5xx to client input', {
  table: 'fuzz-rbac',
  salt: 500,
  area: (r) => r.method === 'GET' && READS.includes(r.path),
  routes,
});
