import { scopesCollection, shapeItem, type RecordParams } from '../../lists/index.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import type { CreateScopeBody } from './scope-bodies.ts';
import { scopeView } from './scope-view.ts';

/**
 * `POST /resources/{id}/scopes` `{scope_name, scope_description}` (API.md §6): 201 with the Scope.
 * `scope_name` is unique within the resource (409; a marker written in the same transaction, so
 * parallel creates of one name give one 201); the resource's `aggregations.scopes` moves with it.
 */
export async function createResourceScope(
  deps: ResourceDeps,
  access: ResourceAccess,
  resourceId: string,
  body: CreateScopeBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadResource(deps, resourceId, access.ctx);
  const scope = await deps.scopes.create(resourceId, body, access.ctx.actor);
  deps.forgetResources();
  return shapeItem(scopesCollection, scopeView(scope), params);
}
