import { forbidden } from '../../errors.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ResourceDeps } from './resource-deps.ts';

/**
 * `DELETE /resources/{id}` (docs/contract.md §6): 204. The repository cascades (client links and the
 * permissions on the resource, scopes, markers; docs/data-model.md §4). The management API
 * itself: 403 (docs/contract.md §4).
 */
export async function deleteResource(deps: ResourceDeps, access: ManagementAccess, id: string): Promise<void> {
  const resource = await loadVisible(deps.resources, access.ctx, id, 'Resource');
  if (resource.resource_metadata.is_system) throw forbidden('The system resource cannot be deleted.');
  // Read before the cascade removes them: these clients' cached grants name the resource.
  const links = await deps.links.listForResource(id);
  await deps.resources.delete(id);
  deps.forgetResources();
  for (const link of links) deps.forgetClient(link.client_id);
}
