import { insufficientScope } from '../errors.ts';
import type { Caller } from '../http/authenticate.ts';
import { isUserToken, type PrincipalReads } from '../ports/token-path.ts';
import { userPermissions } from '../rbac/user-permissions.ts';
import { DEFAULT_TENANT_ID } from '../records/tenant-record.ts';
import type { UserRecord } from '../records/user-record.ts';

/**
 * The management scopes a caller holds NOW: its token's scopes that its client is still granted
 * on the management API. A scope removed from a client (permission revoked, resource unlinked)
 * thus stops working for tokens already issued within the record cache bound
 * (`RECORD_CACHE_TTL_SECONDS`, default 1 s; at once in the container that made the change), not at
 * the token's expiry: a self-granted scope does not outlive its removal (docs/contract.md §8, docs/security.md).
 * The route's scope is checked against this set (403 `insufficient_scope`), and the no-escalation
 * rule (no-escalation.ts) compares grants with it.
 *
 * Client tokens (`sub` = `client_id`, client_credentials) are narrowed to their Client
 * Permissions. A user token (`sub` ≠ `client_id`) is narrowed to its user's effective permissions
 * on the management API (RBAC: direct, from roles, from groups and their ancestors;
 * shared/rbac/; and a tenant admin's scopes, docs/tenants.md "Tenant admins"), read through the
 * same 1 s record caches as the token path: a role, membership,
 * permission or nesting link removed stops a scope of tokens already issued within the TTL. Its
 * client's permissions never apply to it (docs/contract.md §7.1), whatever its `scope` claim says. Without
 * any, it reaches only the "self" routes, as the user the path names (`caller.self`).
 */
export async function heldScopes(caller: Caller, routeScope: string | undefined, deps: PrincipalScopeDeps): Promise<ReadonlySet<string>> {
  const names = isUserToken(caller.claims)
    ? await userManagementScopes(await deps.findUser(caller.claims.sub), deps)
    : await clientManagementScopes(caller.claims.client_id, deps);
  const held: ReadonlySet<string> = new Set([...caller.scopes].filter((s) => names.has(s)));
  if (routeScope && !held.has(routeScope) && !caller.self) throw insufficientScope(routeScope);
  return held;
}

/** What the management scopes of a user or a client are read through: the token path's 1 s caches. */
export type PrincipalScopeDeps = PrincipalReads;

const managementApi = (deps: PrincipalScopeDeps) => deps.findResource(DEFAULT_TENANT_ID, deps.managementAudience);

/** The management-API scopes a user effectively holds (RBAC: direct, roles, groups and their ancestors). */
export async function userManagementScopes(user: UserRecord | undefined, deps: PrincipalScopeDeps): Promise<ReadonlySet<string>> {
  const resource = await managementApi(deps);
  return user && resource ? userPermissions(user, resource, deps.rbac) : new Set<string>();
}

/** The management-API scopes a client is granted (its Client Permissions on the system resource). */
export async function clientManagementScopes(clientId: string, deps: PrincipalScopeDeps): Promise<ReadonlySet<string>> {
  const [client, resource] = await Promise.all([deps.findClient(clientId), managementApi(deps)]);
  const granted = (resource && client?.grants.get(resource.id)) || new Set<string>();
  return new Set([...granted].flatMap((id) => (resource?.scope_names[id] !== undefined ? [resource.scope_names[id]] : [])));
}
