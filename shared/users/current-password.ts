import type { UserRecord } from '../records/user-record.ts';
import type { LoginFailuresRepository } from '../store/users/login-failures-repository.ts';

export interface CurrentPasswordDeps {
  /** The user lockout's count (docs/users.md "Brute force"): each check counts like a login attempt. */
  loginFailures: Pick<LoginFailuresRepository, 'admit' | 'reset'>;
  /** Constant time; false for a user without a password (after the same work). */
  verifyPassword: (password: string, hash: string | undefined) => Promise<boolean>;
}

/** `locked`: refused unchecked, the lockout ends in `retryAfterSeconds`. */
export type CurrentPasswordCheck = { ok: true } | { ok: false; locked?: { retryAfterSeconds: number } };

/**
 * Whether `presented` is the user's current password, before a credential of the user is changed
 * by someone holding only a session or a token of the user (a self password change, an
 * authenticator enrolled or removed, docs/users.md "Changing an authenticator"). A stolen token or
 * an open tab must not become a password oracle: the attempt is counted BEFORE the check, like a
 * login's (login-failures-repository.ts), so a locked user is refused right password or not; a
 * right one clears the count.
 */
export async function checkCurrentPassword(deps: CurrentPasswordDeps, user: UserRecord, presented: string): Promise<CurrentPasswordCheck> {
  const admission = await deps.loginFailures.admit(user.id);
  if (!admission.admitted) return { ok: false, locked: { retryAfterSeconds: admission.retryAfterSeconds } };
  if (!(await deps.verifyPassword(presented, user.password_hash))) return { ok: false };
  await deps.loginFailures.reset(user.id);
  return { ok: true };
}
