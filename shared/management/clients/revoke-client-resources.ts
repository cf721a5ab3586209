import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange, assertNotDefaultSystemLink } from './client-guards.ts';

/**
 * DELETE /clients/{client_id}/resources `{resources: [id]}` (spec §4.3, docs/contract.md §6): removes the
 * links and the client's permissions on those resources, all-or-nothing; a missing link is 404.
 * From the next token request on, the client can no longer ask for those audiences.
 */
export async function revokeClientResources(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  resourceIds: readonly string[],
): Promise<void> {
  const client = await loadVisible(deps.clients, access.ctx, clientId, 'Client');
  assertMayChange(access.ctx, client);
  await assertNotDefaultSystemLink(deps, client, resourceIds);
  await deps.links.revoke(clientId, resourceIds);
  deps.forget(clientId);
}
