import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { RoleDeps } from './role-deps.ts';
import { userRoleEntity } from './role-entity.ts';

/** GET /users/{user_id}/roles: the user's direct role links (GSI2), `role_data` under `expand=all`. */
export function listUserRoles(deps: RoleDeps, access: ManagementAccess, userId: string, params: ListParams): Promise<ListEnvelope> {
  const parent = { repo: deps.users, id: userId, noun: 'User' };
  return listChildren(userRoleEntity, deps, access, parent, `users/${userId}/roles`, () => deps.roleLinks.listRolesOfUser(userId), params);
}
