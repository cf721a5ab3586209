import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteTenant } from '#shared/management/tenants/delete-tenant.ts';
import { TenantPath } from '#shared/management/tenants/tenant-body-schemas.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';
import { tenantDeps } from '#shared/wiring/tenants.ts';

/** DELETE /identity/v1/tenants/{tenant_id}: 204 (docs/contract.md §6, docs/tenants.md "Deleting a tenant"). */
export const handler = managementHandler({ path: TenantPath, responses: NO_CONTENT }, async (req) => {
  await deleteTenant(tenantDeps(req.runtime), req.access, req.path.tenant_id);
  return noContent();
});
