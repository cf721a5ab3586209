import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { TenantDeps } from './tenant-deps.ts';
import { tenantEntity } from './tenant-entity.ts';
import { managesAllTenants } from './tenant-rules.ts';

/**
 * GET /tenants (docs/contract.md §3, §6): every tenant for a global caller of a multi-tenant stage;
 * for anyone else a list of the one tenant its requests work in (docs/tenants.md "Who may call").
 */
export async function listTenants(deps: TenantDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  const { ctx } = access;
  const source = managesAllTenants(deps, ctx)
    ? deps.tenants.collection()
    : arraySource(
        `TENANTS|own|${ctx.tenantId}`,
        [await deps.tenants.get(ctx.tenantId)].filter((t) => t !== undefined),
      );
  return listRecords(tenantEntity, deps, access, source, params, await deps.cursorKey());
}
