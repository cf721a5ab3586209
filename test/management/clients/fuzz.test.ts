import { clientPermissionsCollection, clientResourcesCollection, clientsCollection } from '#shared/lists/index.ts';
import { ClientPath, CreateClientBody, UpdateClientBody } from '#shared/management/clients/client-body-schemas.ts';
import {
  clientListQuery,
  clientPermissionsListQuery,
  clientRecordQuery,
  clientResourcesListQuery,
} from '#shared/management/clients/client-request.ts';
import { ResourcesBody } from '#shared/management/clients/link-body-schemas.ts';
import { PermissionsBody } from '#shared/management/kit/permissions-body.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Clients endpoints and health: whatever the body, query string, path
 * parameters and headers (bodies derived from the schemas each handler validates with, see
 * fuzz-support.ts), the answer is never a 5xx, and every 4xx is a JSON `{code, message}` whose 400
 * message names where the problem is (docs/contract.md §2). The Resources half is in
 * fuzz-management-resources.test.ts. `FUZZ_STATS=1` prints what the runs reached.
 */
const C = `${M}/clients`;
const clients = { collection: clientsCollection };
const permission = (resourceId: string, scopes: string[]) => ({ permissions: [{ resource_id: resourceId, scopes }] });

const routes: FuzzRoute[] = [
  { route: 'GET /company/v1/health' },
  { route: 'GET /api/company/v1/health' },
  { route: `GET ${C}`, query: clientListQuery, ...clients },
  { route: `POST ${C}`, body: CreateClientBody, query: clientRecordQuery, ...clients },
  { route: `GET ${C}/{client_id}`, path: ClientPath, query: clientRecordQuery, ...clients },
  { route: `PATCH ${C}/{client_id}`, path: ClientPath, body: UpdateClientBody, query: clientRecordQuery, ...clients },
  { route: `PUT ${C}/{client_id}`, path: ClientPath, body: UpdateClientBody, query: clientRecordQuery, ...clients },
  { route: `DELETE ${C}/{client_id}`, path: ClientPath },
  { route: `POST ${C}/{client_id}/secret`, path: ClientPath, query: clientRecordQuery, ...clients },
  { route: `GET ${C}/{client_id}/resources`, path: ClientPath, query: clientResourcesListQuery, collection: clientResourcesCollection },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${C}/{client_id}/resources`,
    path: ClientPath,
    body: ResourcesBody,
    fitting: (s: Seeds) => [
      { resources: [s.freeResourceId] },
      { resources: [s.resourceId] },
      { resources: [s.freeResourceId, s.resourceId] },
    ],
  })),
  {
    route: `GET ${C}/{client_id}/permissions`,
    path: ClientPath,
    query: clientPermissionsListQuery,
    collection: clientPermissionsCollection,
  },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${C}/{client_id}/permissions`,
    path: ClientPath,
    body: PermissionsBody,
    fitting: (s: Seeds) => [
      permission(s.resourceId, [s.scopeId]),
      permission(s.resourceId, [s.otherScopeId]),
      permission(s.resourceId, [s.scopeId, s.otherScopeId]),
      permission(s.resourceId, [s.scopeId, s.scopeId]),
    ],
  })),
];

fuzzArea('fuzz: Clients endpoints and health never answer 5xx to client input', {
  table: 'fuzz-clients',
  salt: 0,
  area: (r) => r.path.startsWith(C) || r.path.endsWith('/health'),
  routes,
});
