import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientEntity } from './client-entity.ts';

/**
 * GET /clients (spec §4.3, docs/contract.md §3): the request's tenant's clients through the shared list
 * machinery (q, sort, fields, expand, total_count, offset/limit, cursor). For a `read:client_keys`
 * caller the secrets of the returned page only are opened, after `fields`.
 */
export async function listClients(deps: ClientDeps, access: ManagementAccess, params: ListParams): Promise<ListEnvelope> {
  return listRecords(clientEntity, deps, access, deps.clients.collection(access.ctx.tenantId), params, await deps.cursorKey());
}
