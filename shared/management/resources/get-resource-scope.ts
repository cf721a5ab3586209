import { notFound } from '../../errors.ts';
import { scopesCollection, shapeItem, type RecordParams } from '../../lists/index.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { scopeView } from './scope-view.ts';

/** `GET /resources/{id}/scopes/{scope_id}`: 200 Scope; 404 when either is unknown or the resource is another tenant's. */
export async function getResourceScope(
  deps: ResourceDeps,
  access: ResourceAccess,
  resourceId: string,
  scopeId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadResource(deps, resourceId, access.ctx);
  const scope = await deps.scopes.get(resourceId, scopeId);
  if (!scope) throw notFound(`Scope ${scopeId} not found.`);
  return shapeItem(scopesCollection, scopeView(scope), params);
}
