import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientEntity } from './client-entity.ts';

/**
 * GET /clients/{client_id} (spec §4.3). `client_secret` only for a `read:client_keys` caller
 * (docs/design.md §4), opened only if `fields` keeps it.
 */
export async function getClient(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  return presentRecord(clientEntity, deps, access, await loadVisible(deps.clients, access.ctx, clientId, 'Client'), params);
}
