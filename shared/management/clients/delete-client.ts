import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ClientDeps } from './client-deps.ts';
import { assertMayChange } from './client-guards.ts';

/**
 * DELETE /clients/{client_id}: 204 (docs/contract.md §6). Cascades to the client's links and permissions
 * with the resources' counts (docs/data-model.md §4). The Default Client: 403 (spec §4.3).
 */
export async function deleteClient(deps: ClientDeps, access: ManagementAccess, clientId: string): Promise<void> {
  const client = await loadVisible(deps.clients, access.ctx, clientId, 'Client');
  assertMayChange(access.ctx, client);
  await deps.clients.delete(clientId);
  deps.forget(clientId);
}
