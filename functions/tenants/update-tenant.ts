import { record } from '#shared/http/response-spec.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { TenantPath, UpdateTenantBody } from '#shared/management/tenants/tenant-body-schemas.ts';
import { tenantEntity } from '#shared/management/tenants/tenant-entity.ts';
import { tenantRecordQuery } from '#shared/management/tenants/tenant-request.ts';
import { updateTenant } from '#shared/management/tenants/update-tenant.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantDeps } from '#shared/wiring/tenants.ts';

/** PATCH /identity/v1/tenants/{tenant_id} (docs/contract.md §6): merge. */
export const handler = managementHandler(
  { path: TenantPath, body: UpdateTenantBody, query: tenantRecordQuery, responses: { 200: record(tenantEntity) } },
  async (req) =>
    recordResponse(tenantEntity, 200, await updateTenant(tenantDeps(req.runtime), req.access, req.path.tenant_id, req.body, req.query)),
);
