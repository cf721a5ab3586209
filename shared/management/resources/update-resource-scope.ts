import { scopesCollection, shapeItem, type RecordParams } from '../../lists/index.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import type { UpdateScopeBody } from './scope-bodies.ts';
import { scopeView } from './scope-view.ts';

/**
 * `PATCH|PUT /resources/{id}/scopes/{scope_id}` (API.md §6): merges; a rename moves the unique
 * name (409 if taken) and is what the next token carries (the resource's `scope_names` changes in
 * the same transaction). Renaming a management API scope: 403 (its names are the API's contract).
 */
export async function updateResourceScope(
  deps: ResourceDeps,
  access: ResourceAccess,
  resourceId: string,
  scopeId: string,
  body: UpdateScopeBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadResource(deps, resourceId, access.ctx);
  const scope = await deps.scopes.update(resourceId, scopeId, body, access.ctx.actor);
  deps.forgetResources();
  return shapeItem(scopesCollection, scopeView(scope), params);
}
