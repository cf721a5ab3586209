import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { removeTenantAdmins } from '#shared/management/tenants/tenant-admins.ts';
import { TenantAdminsBody, TenantPath } from '#shared/management/tenants/tenant-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantAdminDeps } from '#shared/wiring/tenants.ts';

/** DELETE /identity/v1/tenants/{tenant_id}/admins: 204 (docs/tenants.md "Tenant admins"). */
export const handler = managementHandler({ path: TenantPath, body: TenantAdminsBody, responses: NO_CONTENT }, async (req) => {
  await removeTenantAdmins(tenantAdminDeps(req.runtime), req.access, req.path.tenant_id, req.body.users);
  return noContent();
});
