import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UserDeps } from './user-deps.ts';
import { userEntity } from './user-entity.ts';

/**
 * POST /users/{user_id}/block and /unblock: 200 with the User (docs/contract.md §7.5). Blocking sets
 * `tokens_revoked_at` in the same write (every access, ID and refresh token issued so far dies,
 * docs/management-users.md "Block"); unblocking does not bring those tokens back.
 */
export async function setUserBlocked(
  deps: UserDeps,
  access: ManagementAccess,
  userId: string,
  blocked: boolean,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.users, access.ctx, userId, 'User');
  const updated = await deps.users.setBlocked(userId, blocked, deps.now(), access.ctx.actor);
  deps.forget(userId);
  return presentRecord(userEntity, deps, access, updated, params);
}
