import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { RoleDeps } from './role-deps.ts';
import { roleEntity } from './role-entity.ts';

/** GET /roles (docs/contract.md §3, §6): the caller's tenant's roles. */
export async function listRoles(deps: RoleDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  return listRecords(roleEntity, deps, access, deps.roles.collection(access.ctx.tenantId), params, await deps.cursorKey());
}
