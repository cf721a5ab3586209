import { badRequest, forbidden, notFound } from '../../errors.ts';
import type { UserProfile, UserRecord } from '../../records/user-record.ts';
import { passwordProblem } from '../../users/password-rules.ts';
import { isVisible, type ManagementAccess } from '../kit/access.ts';
import { assertMayActAs } from '../no-escalation.ts';
import type { UserDeps } from './user-deps.ts';

/** API.md §7.5: a user is found by at least one login identifier. */
export function assertHasLogin(user: Pick<UserProfile, 'email' | 'username' | 'phone_number'>): void {
  if (user.email === undefined && user.username === undefined && user.phone_number === undefined) {
    throw badRequest('body.email: is required unless username or phone_number is given.');
  }
}

/** API.md §7.2 rules on a new password; 400 naming `body.password`. The message never echoes it. */
export function assertPasswordAllowed(password: string, user: Pick<UserProfile, 'email' | 'username'>): void {
  const problem = passwordProblem(password, { email: user.email, username: user.username });
  if (problem) throw badRequest(`body.password: ${problem}`);
}

/**
 * The user of a "self" route (API.md §7.6), all of which set credentials (the password, the
 * authenticator): a caller holding `update:users` acts on any user of its tenant whose management
 * scopes it holds too (no-escalation.ts `assertMayActAs`); any other caller got here only as the user the path
 * names (shared/http/authenticate.ts), which is checked again here against the record: same id,
 * same tenant as the request's. Returns the user and whether the caller acts as that user.
 */
export async function loadSelfOrManaged(
  deps: Pick<UserDeps, 'users' | 'managementScopesOf'>,
  access: ManagementAccess,
  userId: string,
): Promise<{ user: UserRecord; self: boolean }> {
  const { ctx } = access;
  const managed = ctx.scopes.has('update:users');
  if (!managed && ctx.actor.toLowerCase() !== userId) throw forbidden('Only the user itself or a holder of update:users may do this.');
  const user = await deps.users.get(userId);
  if (!user || !isVisible(ctx, user)) throw notFound('User not found.');
  if (managed) await assertMayActAs(ctx, user.id, () => deps.managementScopesOf(user));
  return { user, self: !managed };
}
