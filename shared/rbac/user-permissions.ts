import type { TokenResource } from '../ports/token-path.ts';
import { heldScopeIds, type RbacRecordReads, type RbacUser } from './effective-permissions.ts';
import { type TenantAdminFlag, tenantAdminScopeNames } from './tenant-admin-scopes.ts';

/**
 * The scope names of `resource` the user effectively holds (docs/contract.md §7.1): its direct permissions,
 * those of its roles, and those of the roles of its groups and of their ancestors
 * (shared/rbac/effective-permissions.ts). `reads` is the token path's: through the 1 s record
 * caches, so a warm container reads nothing, and a removed link counts from the next token after
 * at most `RECORD_CACHE_TTL_SECONDS` (docs/rbac.md "Staleness"). A scope id the Resource no
 * longer names (deleted meanwhile) grants nothing. On the management API (the system resource), a
 * tenant admin also holds every management scope but `create:tenants` / `delete:tenants`
 * (docs/contract.md §7.7; tenant-admin-scopes.ts), read from the user item's mirror: no extra read.
 */
export async function userPermissions(
  user: RbacUser & TenantAdminFlag,
  resource: TokenResource,
  reads: RbacRecordReads,
): Promise<ReadonlySet<string>> {
  const ids = await heldScopeIds(user, resource.id, reads);
  const held = new Set([...ids].flatMap((id) => (resource.scope_names[id] !== undefined ? [resource.scope_names[id]] : [])));
  if (resource.is_system) for (const s of tenantAdminScopeNames(user, resource.scope_names)) held.add(s);
  return held;
}
