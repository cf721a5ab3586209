import { userGrantsCollection } from '#shared/lists/index.ts';
import { UserGrantPath, userGrantListQuery } from '#shared/management/grants/user-grants.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { type FuzzRoute, fuzzArea, M } from '../support/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the User Grants endpoints (docs/contract.md §6): whatever the query string, path
 * parameters and headers, the answer is never a 5xx, and every 4xx is a JSON `{code, message}`.
 */
const G = `${M}/users/{user_id}/grants`;

const routes: FuzzRoute[] = [
  { route: `GET ${G}`, path: UserPath, collection: userGrantsCollection, query: userGrantListQuery },
  { route: `DELETE ${G}/{grant_id}`, path: UserGrantPath },
];

fuzzArea('fuzz: User Grants endpoints never answer 5xx to client input', {
  table: 'fuzz-grants',
  salt: 900,
  area: (r) => r.path.startsWith(G),
  routes,
});
