import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange, assertResourcesVisible } from './client-guards.ts';
import { assertMayLinkManagementApi } from './management-api-clients.ts';

/**
 * POST /clients/{client_id}/resources `{resources: [id]}` (spec §4.3, docs/contract.md §6): all-or-nothing;
 * an unknown (or invisible) resource is 404, an existing link 409, and then nothing changes. The
 * repository re-validates on its consistent read and commits links and counts in one transaction
 * guarded by the client's `links_version` (docs/data-model.md §1), which is what makes parallel
 * authorizations of one resource give exactly one success. The management API among them needs
 * every management scope (management-api-clients.ts), else 403 and nothing changes.
 */
export async function authorizeClientResources(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  resourceIds: readonly string[],
): Promise<void> {
  const client = await loadVisible(deps.clients, access.ctx, clientId, 'Client');
  assertMayChange(access.ctx, client);
  await assertResourcesVisible(deps, access.ctx, resourceIds, 'body.resources');
  await assertMayLinkManagementApi(deps, access.ctx, resourceIds);
  await deps.links.authorize(clientId, resourceIds, access.ctx.actor);
  deps.forget(clientId);
}
