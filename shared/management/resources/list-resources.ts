import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceEntity } from './resource-entity.ts';

/**
 * `GET /resources` (spec §4.3 "Get resources", §4.1 list parameters, docs/contract.md §3): the resources of
 * the request's tenant (the `tenant_id` header of a global caller in multi-tenant mode, else the
 * caller's own; docs/contract.md §4). The default order is the index order (GSI1SK = UUIDv7 id), so the
 * default list pages the index directly; `q` and other sorts read the tenant's collection.
 */
export async function listResources(deps: ResourceDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  return listRecords(resourceEntity, deps, access, deps.resources.collection(access.ctx.tenantId), params, await deps.cursorKey());
}
