import { loadAllVisible, loadVisible, type ManagementAccess } from '../kit/access.ts';
import { assertHoldsEveryManagementScope } from '../no-escalation.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { assertLinksMayChange } from './resource-guards.ts';

/**
 * `POST /resources/{id}/clients` `{clients: [client_id]}` (docs/contract.md §6, the mirror of
 * `POST /clients/{id}/resources`): 204. All-or-nothing: an unknown or invisible client or
 * resource is 404, an existing link 409, and then nothing changes. Each link moves the resource's
 * `aggregations.clients` and the client's `aggregations.resources` in the same transaction.
 * Linking to the management API needs every management scope (docs/security.md "The management
 * API"), else 403 and nothing changes.
 */
export async function authorizeResourceClients(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  clientIds: readonly string[],
): Promise<void> {
  const resource = await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  // A client linked to the management API can carry any user's management token.
  if (resource.resource_metadata.is_system) assertHoldsEveryManagementScope(access.ctx.scopes);
  assertLinksMayChange(
    access.ctx,
    await loadAllVisible(deps.clients, access.ctx, clientIds, { field: 'body.clients', noun: 'client' }),
    resource,
    false,
  );
  await deps.links.authorizeClients(resourceId, clientIds, access.ctx.actor);
  for (const id of new Set(clientIds)) deps.forgetClient(id);
}
