import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UserDeps } from './user-deps.ts';
import { userEntity } from './user-entity.ts';

/** GET /users/{user_id} (docs/contract.md §6): another tenant's user is a 404. */
export async function getUser(
  deps: UserDeps,
  access: ManagementAccess,
  userId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(userEntity, deps, access, await loadVisible(deps.users, access.ctx, userId, 'User'), params);
}
