import { notFound } from '../../errors.ts';
import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { scopeEntity } from './resource-entity.ts';

/** `GET /resources/{id}/scopes/{scope_id}`: 200 Scope; 404 when either is unknown or the resource is another tenant's. */
export async function getResourceScope(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  scopeId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  const scope = await deps.scopes.get(resourceId, scopeId);
  if (!scope) throw notFound('Scope not found.');
  return presentRecord(scopeEntity, deps, access, scope, params);
}
