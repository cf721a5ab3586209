import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { scopeEntity } from './resource-entity.ts';
import type { UpdateScopeBody } from './scope-bodies.ts';

/**
 * `PATCH|PUT /resources/{id}/scopes/{scope_id}` (docs/contract.md §6): merges; a rename moves the unique
 * name (409 if taken) and is what the next token carries (the resource's `scope_names` changes in
 * the same transaction). Renaming a management API scope: 403 (its names are the API's contract).
 */
export async function updateResourceScope(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  scopeId: string,
  body: UpdateScopeBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  const scope = await deps.scopes.update(resourceId, scopeId, body, access.ctx.actor);
  deps.forgetResources();
  return presentRecord(scopeEntity, deps, access, scope, params);
}
