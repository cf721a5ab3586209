import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UpdateGroupInput } from './group-body-schemas.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupEntity } from './group-entity.ts';

/** PATCH (and PUT) /groups/{group_id} (docs/contract.md §6): merges under the version lock; a taken name is 409. */
export async function updateGroup(
  deps: GroupDeps,
  access: ManagementAccess,
  groupId: string,
  body: UpdateGroupInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.groups, access.ctx, groupId, 'Group');
  return presentRecord(groupEntity, deps, access, await deps.groups.update(groupId, body, access.ctx.actor), params);
}
