import type { RecordParams } from '../../lists/index.ts';
import { loadResource } from './load-resource.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { presentResource } from './present-resource.ts';

/** `GET /resources/{id}` (spec §4.3 "Get a resource"): 200 Resource; 404 unknown or another tenant's. */
export async function getResource(deps: ResourceDeps, access: ResourceAccess, id: string, params: RecordParams): Promise<Record<string, unknown>> {
  return presentResource(deps, await loadResource(deps, id, access.ctx), access, params);
}
