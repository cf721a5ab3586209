import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceEntity } from './resource-entity.ts';

/** `GET /resources/{id}` (spec §4.3 "Get a resource"): 200 Resource; 404 unknown or another tenant's. */
export async function getResource(
  deps: ResourceDeps,
  access: ManagementAccess,
  id: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(resourceEntity, deps, access, await loadVisible(deps.resources, access.ctx, id, 'Resource'), params);
}
