import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { RoleDeps } from './role-deps.ts';
import { roleMemberEntity } from './role-entity.ts';

/** GET /roles/{role_id}/members: the member links, `user_data` under `expand=all`. */
export function listRoleMembers(deps: RoleDeps, access: ManagementAccess, roleId: string, params: ListParams): Promise<ListEnvelope> {
  const parent = { repo: deps.roles, id: roleId, noun: 'Role' };
  return listChildren(roleMemberEntity, deps, access, parent, `roles/${roleId}/members`, () => deps.roleLinks.listMembers(roleId), params);
}
