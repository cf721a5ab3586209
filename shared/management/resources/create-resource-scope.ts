import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { scopeEntity } from './resource-entity.ts';
import type { CreateScopeBody } from './scope-bodies.ts';

/**
 * `POST /resources/{id}/scopes` `{scope_name, scope_description}` (docs/contract.md §6): 201 with the Scope.
 * `scope_name` is unique within the resource (409; a marker written in the same transaction, so
 * parallel creates of one name give one 201); the resource's `aggregations.scopes` moves with it.
 */
export async function createResourceScope(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  body: CreateScopeBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  const scope = await deps.scopes.create(resourceId, body, access.ctx.actor);
  deps.forgetResources();
  return presentRecord(scopeEntity, deps, access, scope, params);
}
