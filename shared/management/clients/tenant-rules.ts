import { badRequest, forbidden, notFound } from '../../errors.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';

/**
 * The tenant a created client goes to, or a PATCH moves it to (docs/contract.md §4). Not given: the
 * request's tenant (the caller's own, or the `tenant_id` header of a global caller). Given:
 * single-tenant mode knows only the default tenant (400 otherwise); in multi-tenant mode a
 * non-global caller may only name its own tenant (403, as for the header), and the tenant must
 * exist (404, as an unknown id in a link body is: docs/contract.md §6).
 */
export async function resolveClientTenant(
  deps: Pick<ClientDeps, 'tenants' | 'multiTenant'>,
  ctx: ManagementContext,
  requested: string | undefined,
): Promise<string> {
  const tenantId = requested ?? ctx.tenantId;
  if (!deps.multiTenant) {
    if (tenantId !== DEFAULT_TENANT_ID) throw badRequest('body.tenant_id: this deployment is single-tenant; leave tenant_id out.');
    return tenantId;
  }
  if (!ctx.isGlobal && tenantId !== ctx.tenantId) throw forbidden('body.tenant_id: this client may only act on its own tenant.');
  // The header of a global caller is not checked against the tenants (management-context.ts); a
  // client must never be created in a tenant that does not exist.
  if (!(await deps.tenants.get(tenantId))) {
    throw notFound(`${requested === undefined ? 'header' : 'body'}.tenant_id: names no tenant.`);
  }
  return tenantId;
}

/**
 * docs/contract.md §4 isolation: a tenant-bound (non-global) caller cannot make a client global, or the
 * client it creates could then act on every tenant. For such callers `is_global` therefore
 * defaults to false; asking for true is 403. Global callers keep the spec's default, true.
 */
export function resolveIsGlobal(ctx: ManagementContext, requested: boolean | undefined): boolean {
  const isGlobal = requested ?? ctx.isGlobal;
  if (isGlobal && !ctx.isGlobal) throw forbidden('body.is_global: only a global client may create or modify global clients.');
  return isGlobal;
}
