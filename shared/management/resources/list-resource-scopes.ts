import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { scopeEntity } from './resource-entity.ts';

/**
 * `GET /resources/{id}/scopes` (docs/contract.md §6, spec §4.1 list parameters). A resource's scopes are one
 * partition Query (docs/data-model.md pattern 16) and bounded by the resource item's size, so the
 * list works on them in memory. 404: the resource is unknown or another tenant's.
 */
export async function listResourceScopes(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.resources, id: resourceId, noun: 'Resource' };
  return listChildren(scopeEntity, deps, access, parent, `resources/${resourceId}/scopes`, () => deps.scopes.list(resourceId), params);
}
