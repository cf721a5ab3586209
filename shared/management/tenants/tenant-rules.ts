import { forbidden, notFound } from '../../errors.ts';
import type { TenantRecord } from '../../records/tenant-record.ts';
import type { ManagementContext } from '../management-context.ts';
import type { TenantDeps } from './tenant-deps.ts';

/**
 * docs/tenants.md "Who may call": only a global caller of a multi-tenant stage acts on every tenant
 * (docs/contract.md §4). Every other caller (a non-global client's token, a user's token, any
 * token of a single-tenant stage) sees the tenant its requests work in, and nothing else.
 */
export const managesAllTenants = (deps: Pick<TenantDeps, 'multiTenant'>, ctx: ManagementContext): boolean =>
  deps.multiTenant && ctx.isGlobal;

/** The tenant at `/tenants/{id}`, or 404 when it does not exist or is not the caller's to see (as any invisible record). */
export async function loadVisibleTenant(
  deps: Pick<TenantDeps, 'tenants' | 'multiTenant'>,
  ctx: ManagementContext,
  id: string,
): Promise<TenantRecord> {
  const tenant = managesAllTenants(deps, ctx) || id === ctx.tenantId ? await deps.tenants.get(id) : undefined;
  if (!tenant) throw notFound('Tenant not found.');
  return tenant;
}

/**
 * Creating and deleting tenants: a global caller of a multi-tenant stage only (403 otherwise,
 * whatever the id: a tenant-bound caller learns nothing about other tenants from it). A tenant
 * admin's token never carries `create:tenants` / `delete:tenants` (docs/contract.md §7.7); this also
 * holds for a tenant-bound client that was granted them.
 */
export function assertManagesTenants(deps: Pick<TenantDeps, 'multiTenant'>, ctx: ManagementContext): void {
  if (!deps.multiTenant) throw forbidden('This deployment is single-tenant: it has the default tenant only (docs/tenants.md).');
  if (!ctx.isGlobal) throw forbidden('Only a global client may create or delete tenants.');
}
