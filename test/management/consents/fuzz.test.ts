import { consentsCollection } from '#shared/lists/index.ts';
import { ConsentPath, consentListQuery } from '#shared/management/consents/consents.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { type FuzzRoute, fuzzArea, M } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the User Grants endpoints (docs/contract.md §6): whatever the query string, path
 * parameters and headers, the answer is never a 5xx, and every 4xx is a JSON `{code, message}`.
 */
const G = `${M}/users/{user_id}/grants`;

const routes: FuzzRoute[] = [
  { route: `GET ${G}`, path: UserPath, collection: consentsCollection, query: consentListQuery },
  { route: `DELETE ${G}/{grant_id}`, path: ConsentPath },
];

fuzzArea('fuzz: User Grants endpoints never answer 5xx to client input', {
  table: 'fuzz-grants',
  salt: 900,
  area: (r) => r.path.startsWith(G),
  routes,
});
