import { listCollection, pagedSource, resourcesCollection, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { keys } from '../../store/keys.ts';
import type { ResourceAccess, ResourceDeps } from './resource-deps.ts';
import { withResourceChildren } from './resource-children.ts';
import { resourceView } from './resource-view.ts';
import { revealSecrets } from './sealed-secret.ts';

/**
 * `GET /resources` (spec §4.3 "Get resources", §4.1 list parameters, API.md §3): the resources of
 * the request's tenant (the `tenant_id` header of a global caller in multi-tenant mode, else the
 * caller's own; API.md §4). The default order is the index order (GSI1SK = UUIDv7 id), so the
 * default list pages the index directly; `q` and other sorts read the tenant's collection.
 */
export async function listResources(deps: ResourceDeps, access: ResourceAccess, params: ListParams): Promise<ListEnvelope> {
  const tenantId = access.ctx.tenantId;
  const partition = keys.collection(tenantId, 'RESOURCES');
  const source = pagedSource({
    id: partition,
    listPage: (request) => deps.resources.listPage(tenantId, request),
    count: () => deps.resources.count(tenantId),
    keyOf: (r) => ({ ...keys.resource(r.id), GSI1PK: partition, GSI1SK: r.id }),
    view: (r) => resourceView(r, access.readsKeys),
    expand: (views) => withResourceChildren(deps, views),
  });
  const envelope = await listCollection({ spec: resourcesCollection, source, params, cursorKey: await deps.cursorKey() });
  await revealSecrets(envelope.items, deps.secretBox);
  return envelope;
}
