import type { PermissionRequest } from '../../records/client-link-records.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange, assertNotDefaultSystemLink } from './client-guards.ts';
import { loadVisibleClient } from './load-visible-client.ts';

/**
 * DELETE /clients/{client_id}/permissions (spec §4.3, API.md §6): all-or-nothing; a permission
 * the client does not hold is 404. Requesting a revoked scope at /token is `invalid_scope` from
 * the next request on.
 */
export async function revokeClientPermissions(deps: ClientDeps, ctx: ManagementContext, clientId: string, permissions: readonly PermissionRequest[]): Promise<void> {
  const client = await loadVisibleClient(deps, ctx, clientId);
  assertMayChange(ctx, client);
  await assertNotDefaultSystemLink(deps, client, permissions.map((p) => p.resource_id));
  await deps.permissions.revoke(clientId, permissions);
  deps.forget(clientId);
}
