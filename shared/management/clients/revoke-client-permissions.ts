import type { PermissionRequest } from '../../records/client-link-records.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange, assertNotDefaultSystemLink } from './client-guards.ts';

/**
 * DELETE /clients/{client_id}/permissions (spec §4.3, docs/contract.md §6): all-or-nothing; a permission
 * the client does not hold is 404. Requesting a revoked scope at /token is `invalid_scope` from
 * the next request on.
 */
export async function revokeClientPermissions(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  permissions: readonly PermissionRequest[],
): Promise<void> {
  const client = await loadVisible(deps.clients, access.ctx, clientId, 'Client');
  assertMayChange(access.ctx, client);
  await assertNotDefaultSystemLink(
    deps,
    client,
    permissions.map((p) => p.resource_id),
  );
  await deps.permissions.revoke(clientId, permissions);
  deps.forget(clientId);
}
