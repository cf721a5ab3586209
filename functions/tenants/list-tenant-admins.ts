import { list } from '#shared/http/response-spec.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { tenantAdminEntity } from '#shared/management/tenants/tenant-admin-entity.ts';
import { listTenantAdmins } from '#shared/management/tenants/tenant-admins.ts';
import { TenantPath } from '#shared/management/tenants/tenant-body-schemas.ts';
import { tenantAdminListQuery } from '#shared/management/tenants/tenant-request.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantAdminDeps } from '#shared/wiring/tenants.ts';

/** GET /identity/v1/tenants/{tenant_id}/admins (docs/tenants.md "Tenant admins"). */
export const handler = managementHandler(
  { path: TenantPath, query: tenantAdminListQuery, responses: { 200: list(tenantAdminEntity) } },
  async (req) =>
    listResponse(tenantAdminEntity, await listTenantAdmins(tenantAdminDeps(req.runtime), req.access, req.path.tenant_id, req.query)),
);
