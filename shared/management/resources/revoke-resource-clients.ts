import { loadAllVisible, loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { assertLinksMayChange } from './resource-guards.ts';

/**
 * `DELETE /resources/{id}/clients` `{clients: [client_id]}` (docs/contract.md §6): 204. Also removes those
 * clients' permissions on the resource (as the client side does). All-or-nothing: an unknown
 * client or a missing link is 404 and nothing changes. The next token of those clients for this
 * resource is refused at once in this container (their cached grants are dropped).
 */
export async function revokeResourceClients(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  clientIds: readonly string[],
): Promise<void> {
  const resource = await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  assertLinksMayChange(
    access.ctx,
    await loadAllVisible(deps.clients, access.ctx, clientIds, { field: 'body.clients', noun: 'client' }),
    resource,
    true,
  );
  await deps.links.revokeClients(resourceId, clientIds);
  for (const id of new Set(clientIds)) deps.forgetClient(id);
}
