import { badRequest, forbidden, tooManyRequests } from '../../errors.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { type CurrentPasswordDeps, checkCurrentPassword } from '../../users/current-password.ts';

/**
 * The user acting on its own credentials through the management API (a "self" route, docs/management-users.md)
 * proves it knows its current password, given in `field` (`body.old_password`, `body.password`):
 * missing 400, wrong 403 (changes nothing), locked out 429 with `Retry-After`; each check counts
 * towards the lockout (shared/users/current-password.ts). A one-hour token alone then changes no
 * credential of the user. Messages name the field, never its value.
 */
export async function assertCurrentPassword(
  deps: CurrentPasswordDeps,
  user: UserRecord,
  presented: string | undefined,
  field: string,
  purpose: string,
): Promise<void> {
  if (presented === undefined) throw badRequest(`${field}: is required (the current password) when a user ${purpose}.`);
  const checked = await checkCurrentPassword(deps, user, presented);
  if (checked.ok) return;
  if (checked.locked) throw tooManyRequests(checked.locked.retryAfterSeconds);
  throw forbidden(`${field}: does not match.`);
}
