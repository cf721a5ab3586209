import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { createTenant } from '#shared/management/tenants/create-tenant.ts';
import { CreateTenantBody } from '#shared/management/tenants/tenant-body-schemas.ts';
import { tenantEntity } from '#shared/management/tenants/tenant-entity.ts';
import { tenantRecordQuery } from '#shared/management/tenants/tenant-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantDeps } from '#shared/wiring/tenants.ts';

/** POST /identity/v1/tenants (docs/contract.md §6): 201 with the Tenant. */
export const handler = managementHandler(
  { body: CreateTenantBody, query: tenantRecordQuery, responses: { 201: record(tenantEntity) } },
  async (req) => recordResponse(tenantEntity, 201, await createTenant(tenantDeps(req.runtime), req.access, req.body, req.query)),
);
