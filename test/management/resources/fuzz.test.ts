import {
  listQuerySchema,
  recordQuerySchema,
  resourceClientsCollection,
  resourcesCollection,
  scopesCollection,
} from '#shared/lists/index.ts';
import { clientIdsBody, resourcePath, scopePath } from '#shared/management/resources/request-params.ts';
import { createResourceBody, updateResourceBody } from '#shared/management/resources/resource-bodies.ts';
import { createScopeBody, updateScopeBody } from '#shared/management/resources/scope-bodies.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Resources, Resource Scopes and Resource Clients endpoints: whatever the
 * body, query string, path parameters and headers (bodies derived from the schemas each handler
 * validates with, see fuzz-support.ts), the answer is never a 5xx, and every 4xx is a JSON
 * `{code, message}` whose 400 message names where the problem is (docs/contract.md §2). The Clients half and
 * health are in fuzz-management-clients.test.ts. `FUZZ_STATS=1` prints what the runs reached.
 */
const R = `${M}/resources`;
const S = `${R}/{resource_id}/scopes`;
const resources = { collection: resourcesCollection, query: recordQuerySchema(resourcesCollection) };
const scopes = { collection: scopesCollection, query: recordQuerySchema(scopesCollection) };

const routes: FuzzRoute[] = [
  { route: `GET ${R}`, collection: resourcesCollection, query: listQuerySchema(resourcesCollection) },
  { route: `POST ${R}`, body: createResourceBody, ...resources },
  { route: `GET ${R}/{resource_id}`, path: resourcePath, ...resources },
  { route: `PATCH ${R}/{resource_id}`, path: resourcePath, body: updateResourceBody, ...resources },
  { route: `PUT ${R}/{resource_id}`, path: resourcePath, body: updateResourceBody, ...resources },
  { route: `DELETE ${R}/{resource_id}`, path: resourcePath },
  { route: `GET ${S}`, path: resourcePath, collection: scopesCollection, query: listQuerySchema(scopesCollection) },
  { route: `POST ${S}`, path: resourcePath, body: createScopeBody, ...scopes },
  { route: `GET ${S}/{scope_id}`, path: scopePath, ...scopes },
  { route: `PATCH ${S}/{scope_id}`, path: scopePath, body: updateScopeBody, ...scopes },
  { route: `PUT ${S}/{scope_id}`, path: scopePath, body: updateScopeBody, ...scopes },
  { route: `DELETE ${S}/{scope_id}`, path: scopePath },
  {
    route: `GET ${R}/{resource_id}/clients`,
    path: resourcePath,
    collection: resourceClientsCollection,
    query: listQuerySchema(resourceClientsCollection),
  },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${R}/{resource_id}/clients`,
    path: resourcePath,
    body: clientIdsBody,
    fitting: (s: Seeds) => [{ clients: [s.clientId] }, { clients: [s.clientId, s.publicClientId] }],
  })),
];

fuzzArea('fuzz: Resources, Scopes and Resource Clients endpoints never answer 5xx to client input', {
  table: 'fuzz-resources',
  salt: 100,
  area: (r) => r.path.startsWith(R),
  routes,
});
