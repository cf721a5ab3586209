import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupEntity } from './group-entity.ts';

/** GET /groups (docs/contract.md §3, §6): the request tenant's groups. */
export async function listGroups(deps: GroupDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  return listRecords(groupEntity, deps, access, deps.groups.collection(access.ctx.tenantId), params, await deps.cursorKey());
}
