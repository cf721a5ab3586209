import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { listTenants } from '#shared/management/tenants/list-tenants.ts';
import { tenantEntity } from '#shared/management/tenants/tenant-entity.ts';
import { tenantListQuery } from '#shared/management/tenants/tenant-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantDeps } from '#shared/wiring/tenants.ts';

/** GET /identity/v1/tenants (docs/contract.md §6, docs/tenants.md). */
export const handler = managementHandler({ query: tenantListQuery, responses: { 200: list(tenantEntity) } }, async (req) =>
  listResponse(tenantEntity, await listTenants(tenantDeps(req.runtime), req.access, req.query)),
);
