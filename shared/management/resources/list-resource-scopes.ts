import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { scopeEntity } from './resource-entity.ts';

/**
 * `GET /resources/{id}/scopes` (API.md §6, spec §4.1 list parameters). A resource's scopes are one
 * partition Query (docs/data-model.md pattern 16) and bounded by the resource item's size, so the
 * list works on them in memory. 404: the resource is unknown or another tenant's.
 */
export async function listResourceScopes(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  const scopes = await deps.scopes.list(resourceId);
  // The source id (the list's path) binds cursors to this resource's scope list (docs/lists.md §5).
  return listRecords(scopeEntity, deps, access, arraySource(`resources/${resourceId}/scopes`, scopes), params, await deps.cursorKey());
}
