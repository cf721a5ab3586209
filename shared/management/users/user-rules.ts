import { badRequest, forbidden, notFound } from '../../errors.ts';
import type { UserProfile, UserRecord } from '../../records/user-record.ts';
import { passwordProblem } from '../../users/password-rules.ts';
import { isVisible, type ManagementAccess } from '../kit/access.ts';
import { assertMayActAs } from '../no-escalation.ts';
import type { UserDeps } from './user-deps.ts';

/** docs/contract.md §7.5: a user is found by at least one login identifier. */
export function assertHasLogin(user: Pick<UserProfile, 'email' | 'username' | 'phone_number'>): void {
  if (user.email === undefined && user.username === undefined && user.phone_number === undefined) {
    throw badRequest('body.email: is required unless username or phone_number is given.');
  }
}

/** docs/contract.md §7.2 rules on a new password; 400 naming `body.password`. The message never echoes it. */
export function assertPasswordAllowed(password: string, user: Pick<UserProfile, 'email' | 'username'>): void {
  const problem = passwordProblem(password, { email: user.email, username: user.username });
  if (problem) throw badRequest(`body.password: ${problem}`);
}

/**
 * The user of a "self" route (docs/contract.md §7.6), all of which set credentials (the password, the
 * authenticator). The caller acts as the user when its token is the user's own (`sub` is the path's
 * id; shared/http/authenticate.ts lets only a user token through as "self"), whatever scopes it
 * holds: the use case then asks for the current password. Otherwise it needs `update:users`, and
 * acts on a user of its tenant only if it holds every management scope the user holds
 * (no-escalation.ts `assertMayActAs`). The user must be in the request's tenant either way.
 * Returns the user and whether the caller is that user.
 */
export async function loadSelfOrManaged(
  deps: Pick<UserDeps, 'users' | 'managementScopesOf'>,
  access: ManagementAccess,
  userId: string,
): Promise<{ user: UserRecord; self: boolean }> {
  const { ctx } = access;
  const self = ctx.actor.toLowerCase() === userId.toLowerCase();
  if (!self && !ctx.scopes.has('update:users')) throw forbidden('Only the user itself or a holder of update:users may do this.');
  const user = await deps.users.get(userId);
  if (!user || !isVisible(ctx, user)) throw notFound('User not found.');
  if (!self) await assertMayActAs(ctx, user.id, () => deps.managementScopesOf(user));
  return { user, self };
}
