import type { ClientRecord } from '../../records/client-record.ts';
import { assertVisible, type ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';

/** The client at `/clients/{client_id}`, or 404 when it does not exist or is another tenant's (API.md §4). */
export async function loadVisibleClient(deps: Pick<ClientDeps, 'clients'>, ctx: ManagementContext, clientId: string): Promise<ClientRecord> {
  return assertVisible(await deps.clients.get(clientId), ctx, 'Client');
}
