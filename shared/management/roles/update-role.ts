import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UpdateRoleInput } from './role-body-schemas.ts';
import type { RoleDeps } from './role-deps.ts';
import { roleEntity } from './role-entity.ts';

/**
 * PATCH (and PUT) /roles/{role_id} (docs/contract.md §6): merges `role_name` / `role_description` (`null`
 * removes the description) under the version lock; a new name moves its marker in the same
 * transaction (409 when taken).
 */
export async function updateRole(
  deps: RoleDeps,
  access: ManagementAccess,
  roleId: string,
  body: UpdateRoleInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.roles, access.ctx, roleId, 'Role');
  const { tenant_id: _never, ...patch } = body;
  const updated = await deps.roles.update(roleId, patch, access.ctx.actor);
  return presentRecord(roleEntity, deps, access, updated, params);
}
