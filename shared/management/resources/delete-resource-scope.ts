import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import type { ResourceDeps } from './resource-deps.ts';

/**
 * `DELETE /resources/{id}/scopes/{scope_id}` (docs/contract.md §6): 204; also removes every grant of the
 * scope (the repository's cascade, docs/data-model.md §4). A management API scope: 403 (docs/contract.md §4).
 * Forgetting the resources is enough for tokens: they map granted scope ids through the
 * resource's `scope_names`, which no longer has this one.
 */
export async function deleteResourceScope(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  scopeId: string,
): Promise<void> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  await deps.scopes.delete(resourceId, scopeId);
  deps.forgetResources();
}
