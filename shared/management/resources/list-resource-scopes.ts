import { arraySource, listCollection, scopesCollection, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { keys } from '../../store/keys.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { scopeView } from './scope-view.ts';

/**
 * `GET /resources/{id}/scopes` (API.md §6, spec §4.1 list parameters). A resource's scopes are one
 * partition Query (docs/data-model.md pattern 16) and bounded by the resource item's size, so the
 * list works on them in memory. 404: the resource is unknown or another tenant's.
 */
export async function listResourceScopes(deps: ResourceDeps, access: ResourceAccess, resourceId: string, params: ListParams): Promise<ListEnvelope> {
  await loadResource(deps, resourceId, access.ctx);
  const scopes = (await deps.scopes.list(resourceId)).map(scopeView);
  // The source id binds cursors to this resource's scope list (docs/lists.md §5).
  const source = arraySource(`${keys.resourcePartition(resourceId)}|${keys.scopePrefix}`, scopes);
  return listCollection({ spec: scopesCollection, source, params, cursorKey: await deps.cursorKey() });
}
