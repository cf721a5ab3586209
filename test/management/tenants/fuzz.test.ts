import { randomUUID } from 'node:crypto';
import { tenantsCollection } from '#shared/lists/collections/tenants.ts';
import { CreateTenantBody, TenantAdminsBody, TenantPath, UpdateTenantBody } from '#shared/management/tenants/tenant-body-schemas.ts';
import { tenantAdminListQuery, tenantListQuery, tenantRecordQuery } from '#shared/management/tenants/tenant-request.ts';
import { type FuzzRoute, fuzzArea, M, type Seeds } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the Tenants endpoints (docs/contract.md §6, docs/tenants.md): whatever the
 * body, query, path and headers, in single- and multi-tenant mode, never a 5xx, and every 4xx a
 * JSON `{code, message}`.
 */
const T = `${M}/tenants`;
const tenants = { collection: tenantsCollection, query: tenantRecordQuery };

const routes: FuzzRoute[] = [
  { route: `GET ${T}`, collection: tenantsCollection, query: tenantListQuery },
  {
    route: `POST ${T}`,
    body: CreateTenantBody,
    ...tenants,
    fitting: () => [
      { tenant_name: `fit-${randomUUID()}` },
      { tenant_name: `fit-${randomUUID()}`, tenant_description: 'Fit', tenant_metadata: [{ key: 'k', value: 'v' }] },
    ],
  },
  { route: `GET ${T}/{tenant_id}`, path: TenantPath, ...tenants },
  {
    route: `PATCH ${T}/{tenant_id}`,
    path: TenantPath,
    body: UpdateTenantBody,
    ...tenants,
    fitting: () => [{ tenant_name: `renamed-${randomUUID()}` }, { tenant_description: null }, { tenant_metadata: [] }],
  },
  { route: `DELETE ${T}/{tenant_id}`, path: TenantPath },
  { route: `GET ${T}/{tenant_id}/admins`, path: TenantPath, query: tenantAdminListQuery },
  ...(['POST', 'DELETE'] as const).map((method) => ({
    route: `${method} ${T}/{tenant_id}/admins`,
    path: TenantPath,
    body: TenantAdminsBody,
    fitting: (s: Seeds) => [{ users: [s.userId] }, { users: [s.userId, s.userId] }],
  })),
];

fuzzArea('fuzz: Tenants endpoints never answer 5xx to client input', {
  table: 'fuzz-tenants',
  salt: 1300,
  area: (r) => r.path === T || r.path === `${T}/{tenant_id}` || r.path === `${T}/{tenant_id}/admins`,
  routes,
});
