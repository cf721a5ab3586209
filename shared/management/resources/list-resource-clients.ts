import { arraySource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceClientEntity } from './resource-entity.ts';

/**
 * `GET /resources/{id}/clients` (API.md §6, spec §2.9): the resource's client links, each
 * `authorized: true`, with `client_data` under `expand=all` (resource-entity.ts). The links come
 * from the GSI2 reverse index (docs/data-model.md pattern 20), small enough to list in memory.
 */
export async function listResourceClients(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  await loadVisible(deps.resources, access.ctx, resourceId, 'Resource');
  const links = await deps.links.listForResource(resourceId);
  return listRecords(
    resourceClientEntity,
    deps,
    access,
    arraySource(`resources/${resourceId}/clients`, links),
    params,
    await deps.cursorKey(),
  );
}
