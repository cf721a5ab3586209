import type { UserRecord } from '../../records/user-record.ts';
import type { TokenResource } from '../oauth-deps.ts';

/**
 * The scope names of `resource` the user holds: API.md §7.1's effective permissions (direct, from
 * roles, from groups and their ancestors). Users hold no permissions before issue 12 (RBAC) adds
 * the user permission, role and group records, so today this is the empty set, and an RBAC
 * Resource (the management API among them) gives a user token no scope of its own. Issue 12
 * fills this function in; its callers already intersect with it.
 */
export async function userPermissions(_user: UserRecord, _resource: TokenResource): Promise<ReadonlySet<string>> {
  return new Set();
}
