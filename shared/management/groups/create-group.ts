import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateGroupInput } from './group-body-schemas.ts';
import type { GroupDeps } from './group-deps.ts';
import { groupEntity } from './group-entity.ts';

/** POST /groups (docs/contract.md §6): 201 with the Group, in the request's tenant; a taken `group_name` is 409. */
export async function createGroup(
  deps: GroupDeps,
  access: ManagementAccess,
  input: CreateGroupInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const record = await deps.groups.create({ ...input, tenant_id: access.ctx.tenantId }, access.ctx.actor);
  return presentRecord(groupEntity, deps, access, record, params);
}
