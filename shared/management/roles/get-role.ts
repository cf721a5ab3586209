import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { RoleDeps } from './role-deps.ts';
import { roleEntity } from './role-entity.ts';

/** GET /roles/{role_id} (docs/contract.md §6): another tenant's role is a 404. */
export async function getRole(
  deps: RoleDeps,
  access: ManagementAccess,
  roleId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(roleEntity, deps, access, await loadVisible(deps.roles, access.ctx, roleId, 'Role'), params);
}
