import { notFound } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { TenantDeps } from './tenant-deps.ts';
import { assertManagesTenants } from './tenant-rules.ts';

/**
 * DELETE /tenants/{tenant_id}: 204 (docs/contract.md §6). Global callers of a multi-tenant stage only
 * (403); the default tenant is 403; a tenant that still holds records is 409 naming them, checked
 * race-free in the delete's transaction (store/tenants/tenants-repository.ts, docs/tenants.md).
 */
export async function deleteTenant(deps: TenantDeps, access: ManagementAccess, tenantId: string): Promise<void> {
  assertManagesTenants(deps, access.ctx);
  if (!(await deps.tenants.delete(tenantId))) throw notFound('Tenant not found.');
}
