import type { ManagementAccess } from '../kit/access.ts';
import { assertCurrentPassword } from './self-password.ts';
import type { SetPasswordInput } from './user-body-schemas.ts';
import type { UserDeps } from './user-deps.ts';
import { assertPasswordAllowed, loadSelfOrManaged } from './user-rules.ts';

/**
 * PUT /users/{user_id}/password: 204 (docs/management-users.md "PUT password"). With
 * `update:users` it sets another user's password; as the user itself (its own management-API
 * token, whatever scopes it holds) it needs `old_password` (self-password.ts: missing 400, wrong
 * 403 and nothing changes, each try counted towards the lockout of docs/users.md "Brute force",
 * 429 once locked). The new password follows docs/users.md "Passwords" (400 naming
 * `body.password`). The change sets `tokens_revoked_at`, so every token issued before it dies,
 * refresh tokens included.
 */
export async function setUserPassword(deps: UserDeps, access: ManagementAccess, userId: string, body: SetPasswordInput): Promise<void> {
  const { user, self } = await loadSelfOrManaged(deps, access, userId);
  if (self) await assertCurrentPassword(deps, user, body.old_password, 'body.old_password', 'changes its own password');
  assertPasswordAllowed(body.password, user);
  await deps.users.setPasswordHash(userId, await deps.hashPassword(body.password), deps.now(), { actor: access.ctx.actor });
  deps.forget(userId);
}
