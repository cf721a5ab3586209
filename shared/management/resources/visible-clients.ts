import { forbidden, notFound } from '../../errors.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import type { ResourceRecord } from '../../records/resource-record.ts';
import { assertMayChange } from '../clients/client-guards.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ResourceDeps } from './resource-deps.ts';

/**
 * Every named client must exist and be visible to the caller (API.md §4: another tenant's client is
 * a 404 for a non-global caller), checked on consistent reads before anything is written, so a bad
 * id changes nothing (API.md §6 all-or-nothing). The repository re-checks existence in its
 * transaction; this adds the caller's tenant rule, which it does not know.
 */
export async function assertClientsVisible(deps: Pick<ResourceDeps, 'clients'>, ids: readonly string[], ctx: ManagementContext): Promise<ClientRecord[]> {
  const unique = [...new Set(ids)];
  const clients = await Promise.all(unique.map((id) => deps.clients.get(id)));
  return unique.map((id, i) => {
    const c = clients[i];
    if (!c || (!ctx.isGlobal && c.tenant_id !== ctx.tenantId)) throw notFound(`Client ${id} not found.`);
    return c;
  });
}

/**
 * The client side's rules hold from this side too (shared/management/clients/client-guards.ts): a
 * tenant-bound caller may not change a global client's links, and the Default Client keeps its
 * link to the management API (revoking it would lock the operator out).
 */
export function assertLinksMayChange(ctx: ManagementContext, clients: readonly ClientRecord[], resource: ResourceRecord, removing: boolean): void {
  for (const client of clients) {
    assertMayChange(ctx, client);
    if (removing && client.is_default && resource.resource_metadata.is_system) {
      throw forbidden("The Default Client's access to the management API cannot be revoked.");
    }
  }
}
