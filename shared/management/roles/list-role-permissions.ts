import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { RoleDeps } from './role-deps.ts';
import { rolePermissionEntity } from './role-entity.ts';

/** GET /roles/{role_id}/permissions: one consistent Query of the role's partition, paged in memory. */
export function listRolePermissions(deps: RoleDeps, access: ManagementAccess, roleId: string, params: ListParams): Promise<ListEnvelope> {
  const parent = { repo: deps.roles, id: roleId, noun: 'Role' };
  return listChildren(
    rolePermissionEntity,
    deps,
    access,
    parent,
    `roles/${roleId}/permissions`,
    () => deps.roleLinks.listPermissions(roleId),
    params,
  );
}
