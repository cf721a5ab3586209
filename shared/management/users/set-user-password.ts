import { badRequest, forbidden, tooManyRequests } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { SetPasswordInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { assertPasswordAllowed, loadSelfOrManaged } from './user-rules.ts';

/**
 * PUT /users/{user_id}/password: 204 (API.md §6, §7.6). With `update:users` it sets the password;
 * as the user itself (its own management-API token) it needs `old_password`, checked in constant
 * time (a wrong one is 403 and changes nothing; each try counts towards the lockout of API.md §7.3,
 * 429 once locked). The new password follows API.md §7.2 (400 naming
 * `body.password`). The change sets `tokens_revoked_at`, so every token issued before it dies,
 * refresh tokens included.
 */
export async function setUserPassword(deps: UserDeps, access: ManagementAccess, userId: string, body: SetPasswordInput): Promise<void> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (self) {
    if (body.old_password === undefined) throw badRequest('body.old_password: is required when a user changes its own password.');
    // A stolen user token must not become a password oracle: each check counts like a login
    // attempt (API.md §7.3), and the lockout refuses it, right password or not.
    const admission = await deps.loginFailures.admit(userId);
    if (!admission.admitted) throw tooManyRequests(admission.retryAfterSeconds);
    if (!(await deps.verifyPassword(body.old_password, user.password_hash))) throw forbidden('body.old_password: does not match.');
    await deps.loginFailures.reset(userId);
  }
  assertPasswordAllowed(body.password, user);
  await deps.users.setPasswordHash(userId, await deps.hashPassword(body.password), deps.now(), { actor: access.ctx.actor });
  deps.forget(userId);
}
