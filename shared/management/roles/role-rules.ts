import type { RoleRecord } from '../../records/role-record.ts';
import { assertHolds, managementScopesIn } from '../no-escalation.ts';
import type { RoleDeps } from './role-deps.ts';

/**
 * docs/contract.md §8 "No escalation" for member links: a member link passes the role's permissions on, so
 * adding one needs the caller to hold each management-API scope of every role involved (403
 * `insufficient_scope` naming one), checked before anything is written.
 */
export async function assertMayPassOn(
  deps: Pick<RoleDeps, 'resources'>,
  held: ReadonlySet<string>,
  roles: readonly RoleRecord[],
): Promise<void> {
  const grants = roles.flatMap((r) => Object.entries(r.token_grants).map(([resource_id, s]) => ({ resource_id, scopes: Object.keys(s) })));
  assertHolds(held, await managementScopesIn(grants, (id) => deps.resources.get(id)));
}
