import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateTenantInput } from './tenant-body-schemas.ts';
import type { TenantDeps } from './tenant-deps.ts';
import { tenantEntity } from './tenant-entity.ts';
import { assertManagesTenants } from './tenant-rules.ts';

/**
 * POST /tenants (docs/contract.md §6): 201 with the Tenant. A global caller of a multi-tenant stage
 * only (403 otherwise); a taken `tenant_name` is 409 (the store's marker).
 */
export async function createTenant(
  deps: TenantDeps,
  access: ManagementAccess,
  input: CreateTenantInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  assertManagesTenants(deps, access.ctx);
  const record = await deps.tenants.create(input, access.ctx.actor);
  return presentRecord(tenantEntity, deps, access, record, params);
}
