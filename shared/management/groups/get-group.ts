import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupEntity } from './group-entity.ts';

/** GET /groups/{group_id} (docs/contract.md §6): another tenant's group is a 404. */
export async function getGroup(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(groupEntity, deps, access, await loadVisible(deps.groups, access.ctx, groupId, 'Group'), params);
}
