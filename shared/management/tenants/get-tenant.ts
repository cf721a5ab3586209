import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { TenantDeps } from './tenant-deps.ts';
import { tenantEntity } from './tenant-entity.ts';
import { loadVisibleTenant } from './tenant-rules.ts';

/** GET /tenants/{tenant_id} (docs/contract.md §6): a tenant the caller may not see is a 404, as an unknown id. */
export async function getTenant(
  deps: TenantDeps,
  access: ManagementAccess,
  tenantId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(tenantEntity, deps, access, await loadVisibleTenant(deps, access.ctx, tenantId), params);
}
