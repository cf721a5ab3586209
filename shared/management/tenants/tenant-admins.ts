import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { TENANT_ADMIN_SCOPES } from '../../rbac/tenant-admin-scopes.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import { assertHolds } from '../no-escalation.ts';
import type { TenantAdminDeps } from './tenant-admin-deps.ts';
import { tenantAdminEntity } from './tenant-admin-entity.ts';
import { loadVisibleTenant } from './tenant-rules.ts';

/**
 * The Tenant admins routes (docs/tenants.md "Tenant admins"). The tenant at the path follows the
 * Tenants rules ("Who may call": another tenant is 404 to a tenant-bound caller); the users must be
 * of that tenant (another tenant's user: 404, as an unknown id).
 */

/** GET /tenants/{tenant_id}/admins: the admin links, `user_data` under `expand=all`. */
export async function listTenantAdmins(
  deps: TenantAdminDeps,
  access: ManagementAccess,
  tenantId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  await loadVisibleTenant(deps, access.ctx, tenantId);
  const source = arraySource(`tenants/${tenantId}/admins`, await deps.tenantAdmins.list(tenantId));
  return listRecords(tenantAdminEntity, deps, access, source, params, await deps.cursorKey());
}

/**
 * POST /tenants/{tenant_id}/admins `{users: [id]}`: all-or-nothing (409 for one already an admin).
 * The link passes every management scope but `create:tenants` / `delete:tenants` on
 * (docs/contract.md §7.7), so the caller must hold each of them (§8 no escalation: 403
 * `insufficient_scope` naming one, nothing written).
 */
export async function addTenantAdmins(
  deps: TenantAdminDeps,
  access: ManagementAccess,
  tenantId: string,
  userIds: readonly string[],
): Promise<void> {
  await loadVisibleTenant(deps, access.ctx, tenantId);
  assertHolds(access.ctx.scopes, TENANT_ADMIN_SCOPES);
  await deps.tenantAdmins.add(tenantId, userIds, access.ctx.actor);
  for (const id of userIds) deps.forgetUser(id);
}

/** DELETE /tenants/{tenant_id}/admins `{users: [id]}`: all-or-nothing (404 for one not an admin). */
export async function removeTenantAdmins(
  deps: TenantAdminDeps,
  access: ManagementAccess,
  tenantId: string,
  userIds: readonly string[],
): Promise<void> {
  await loadVisibleTenant(deps, access.ctx, tenantId);
  await deps.tenantAdmins.remove(tenantId, userIds);
  for (const id of userIds) deps.forgetUser(id);
}
