import type { RecordParams } from '../../lists/index.ts';
import type { ResourcePatch } from '../../records/resource-record.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import { checkResourcePatch } from './metadata-rules.ts';
import type { UpdateResourceBody } from './resource-bodies.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceEntity } from './resource-entity.ts';

/**
 * `PATCH|PUT /resources/{id}` (spec §4.3 "Modify a resource", docs/contract.md §6): merges, a field left out
 * keeps its value (PUT is the same). 404 unknown / another tenant's; 409 identifier_url taken;
 * 403 moving the management API's identifier_url or making it HS256; 400 per invalid field.
 */
export async function updateResource(
  deps: ResourceDeps,
  access: ManagementAccess,
  id: string,
  body: UpdateResourceBody,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const current = await loadVisible(deps.resources, access.ctx, id, 'Resource');
  checkResourcePatch(current, body, deps.managementAudience);
  const { resource_type: _fixed, resource_metadata, ...fields } = body;
  const patch: ResourcePatch = { ...fields };
  if (resource_metadata) {
    const { is_system: _readOnly, ...metadata } = resource_metadata;
    patch.resource_metadata = metadata;
  }
  const updated = await deps.resources.update(id, patch, access.ctx.actor);
  deps.forgetResources();
  return presentRecord(resourceEntity, deps, access, updated, params);
}
