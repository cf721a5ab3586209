import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange } from './client-guards.ts';
import { loadVisibleClient } from './load-visible-client.ts';

/**
 * DELETE /clients/{client_id}: 204 (API.md §6). Cascades to the client's links and permissions
 * with the resources' counts (docs/data-model.md §4). The Default Client: 403 (spec §4.3).
 */
export async function deleteClient(deps: ClientDeps, ctx: ManagementContext, clientId: string): Promise<void> {
  const client = await loadVisibleClient(deps, ctx, clientId);
  assertMayChange(ctx, client);
  await deps.clients.delete(clientId);
  deps.forget(clientId);
}
