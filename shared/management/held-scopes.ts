import { insufficientScope } from '../errors.ts';
import type { Caller } from '../http/authenticate.ts';
import type { OAuthDeps } from '../oauth/oauth-deps.ts';
import { DEFAULT_TENANT_ID } from '../records/tenant-record.ts';

/**
 * The management scopes a caller holds NOW: its token's scopes that its client is still granted
 * on the management API. A scope removed from a client (permission revoked, resource unlinked)
 * thus stops working for tokens already issued within the record cache bound
 * (`RECORD_CACHE_TTL_SECONDS`, default 1 s; at once in the container that made the change), not at
 * the token's expiry: a self-granted scope does not outlive its removal (API.md §8, docs/security.md).
 * The route's scope is checked against this set (403 `insufficient_scope`), and the no-escalation
 * rule (no-escalation.ts) compares grants with it.
 *
 * Only client tokens (`sub` = `client_id`, client_credentials) are narrowed: their scopes come
 * from Client Permissions. User tokens for the management API (tenant admins) bring their own rule.
 */
export async function heldScopes(
  caller: Caller,
  routeScope: string | undefined,
  deps: Pick<OAuthDeps, 'findClient' | 'findResource' | 'managementAudience'>,
): Promise<ReadonlySet<string>> {
  let held = caller.scopes;
  if (caller.claims.sub === caller.claims.client_id) {
    const [client, api] = await Promise.all([
      deps.findClient(caller.claims.client_id),
      deps.findResource(DEFAULT_TENANT_ID, deps.managementAudience),
    ]);
    const granted = (api && client?.grants.get(api.id)) || new Set<string>();
    const names = new Set([...granted].map((id) => api?.scope_names[id]));
    held = new Set([...caller.scopes].filter((s) => names.has(s)));
  }
  if (routeScope && !held.has(routeScope)) throw insufficientScope(routeScope);
  return held;
}
