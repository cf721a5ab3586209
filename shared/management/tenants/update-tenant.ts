import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UpdateTenantInput } from './tenant-body-schemas.ts';
import type { TenantDeps } from './tenant-deps.ts';
import { tenantEntity } from './tenant-entity.ts';
import { loadVisibleTenant } from './tenant-rules.ts';

/**
 * PATCH /tenants/{tenant_id} (docs/contract.md §6): merges under the version lock (concurrent PATCHes
 * all land); a new name moves its marker in the same transaction (409 when taken). A tenant-bound
 * caller may update its own tenant (docs/contract.md §7.7: a tenant admin holds `update:tenants`).
 */
export async function updateTenant(
  deps: TenantDeps,
  access: ManagementAccess,
  tenantId: string,
  body: UpdateTenantInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisibleTenant(deps, access.ctx, tenantId);
  const updated = await deps.tenants.update(tenantId, body, access.ctx.actor);
  return presentRecord(tenantEntity, deps, access, updated, params);
}
