import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listChildren } from '../kit/present-record.ts';
import type { ResourceDeps } from './resource-deps.ts';
import { resourceClientEntity } from './resource-entity.ts';

/**
 * `GET /resources/{id}/clients` (docs/contract.md §6, spec §2.9): the resource's client links, each
 * `authorized: true`, with `client_data` under `expand=all` (resource-entity.ts). The links come
 * from the GSI2 reverse index (docs/data-model.md pattern 20), small enough to list in memory.
 */
export async function listResourceClients(
  deps: ResourceDeps,
  access: ManagementAccess,
  resourceId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  const parent = { repo: deps.resources, id: resourceId, noun: 'Resource' };
  return listChildren(
    resourceClientEntity,
    deps,
    access,
    parent,
    `resources/${resourceId}/clients`,
    () => deps.links.listForResource(resourceId),
    params,
  );
}
