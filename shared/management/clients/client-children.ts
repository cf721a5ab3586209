import type { ClientDeps } from './client-deps.ts';
import { clientPermissionView, clientResourceView } from './link-views.ts';

type View = Record<string, unknown>;

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Spec §2.2 children `resources` (§2.5 links) and `permissions` (§2.6) of each client view, for
 * `expand=all` only (API.md §3): one consistent Query of each client's partition, for the records
 * of one page. Children are one level deep (no `resource_data` inside them); their far ends are
 * one `GET /clients/{id}/resources?expand=all` away. In creation (id) order.
 */
export async function addClientChildren(deps: Pick<ClientDeps, 'readPartition'>, views: View[]): Promise<View[]> {
  const partitions = await Promise.all(views.map((v) => deps.readPartition(String(v.id))));
  return views.map((v, i) => {
    const p = partitions[i];
    return {
      ...v,
      resources: p ? [...p.links.values()].sort(byId).map(clientResourceView) : [],
      permissions: p ? [...p.permissions].sort(byId).map(clientPermissionView) : [],
    };
  });
}
