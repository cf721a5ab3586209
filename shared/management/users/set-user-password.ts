import { badRequest, forbidden } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { SetPasswordInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { assertPasswordAllowed, loadSelfOrManaged } from './user-rules.ts';

/**
 * PUT /users/{user_id}/password: 204 (API.md §6, §7.6). With `update:users` it sets the password;
 * as the user itself (its own management-API token) it needs `old_password`, checked in constant
 * time (a wrong one is 403 and changes nothing). The new password follows API.md §7.2 (400 naming
 * `body.password`). The change sets `tokens_revoked_at`, so every token issued before it dies,
 * refresh tokens included.
 */
export async function setUserPassword(deps: UserDeps, access: ManagementAccess, userId: string, body: SetPasswordInput): Promise<void> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (self) {
    if (body.old_password === undefined) throw badRequest('body.old_password: is required when a user changes its own password.');
    if (!(await deps.verifyPassword(body.old_password, user.password_hash))) throw forbidden('body.old_password: does not match.');
  }
  assertPasswordAllowed(body.password, user);
  await deps.users.setPasswordHash(userId, await deps.hashPassword(body.password), deps.now(), { actor: access.ctx.actor });
}
