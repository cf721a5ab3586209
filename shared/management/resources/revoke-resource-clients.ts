import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { assertClientsVisible, assertLinksMayChange } from './visible-clients.ts';

/**
 * `DELETE /resources/{id}/clients` `{clients: [client_id]}` (API.md §6): 204. Also removes those
 * clients' permissions on the resource (as the client side does). All-or-nothing: an unknown
 * client or a missing link is 404 and nothing changes. The next token of those clients for this
 * resource is refused at once in this container (their cached grants are dropped).
 */
export async function revokeResourceClients(deps: ResourceDeps, access: ResourceAccess, resourceId: string, clientIds: readonly string[]): Promise<void> {
  const resource = await loadResource(deps, resourceId, access.ctx);
  assertLinksMayChange(access.ctx, await assertClientsVisible(deps, clientIds, access.ctx), resource, true);
  await deps.links.revokeClients(resourceId, clientIds);
  for (const id of new Set(clientIds)) deps.forgetClient(id);
}
