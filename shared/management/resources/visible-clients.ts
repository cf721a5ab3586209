import { notFound } from '../../errors.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ResourceDeps } from './resource-deps.ts';

/**
 * Every named client must exist and be visible to the caller (API.md §4: another tenant's client is
 * a 404 for a non-global caller), checked on consistent reads before anything is written, so a bad
 * id changes nothing (API.md §6 all-or-nothing). The repository re-checks existence in its
 * transaction; this adds the caller's tenant rule, which it does not know.
 */
export async function assertClientsVisible(deps: Pick<ResourceDeps, 'clients'>, ids: readonly string[], ctx: ManagementContext): Promise<void> {
  const unique = [...new Set(ids)];
  const clients = await Promise.all(unique.map((id) => deps.clients.get(id)));
  unique.forEach((id, i) => {
    const c = clients[i];
    if (!c || (!ctx.isGlobal && c.tenant_id !== ctx.tenantId)) throw notFound(`Client ${id} not found.`);
  });
}
