import { arraySource, clientPermissionsCollection, listCollection, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import { keys } from '../../store/keys.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';
import { addResourceAndScopeData } from './link-data.ts';
import { clientPermissionView } from './link-views.ts';
import { loadVisibleClient } from './load-visible-client.ts';

/**
 * GET /clients/{client_id}/permissions (spec §4.3): the client's permissions (spec §2.6), with
 * `resource_data` and `scope_data` under `expand=all`. One consistent Query of the client's
 * partition (docs/data-model.md pattern 22), paged in memory by the list machinery.
 */
export async function listClientPermissions(deps: ClientDeps, ctx: ManagementContext, clientId: string, params: ListParams, cursorKey: Buffer): Promise<ListEnvelope> {
  await loadVisibleClient(deps, ctx, clientId);
  const permissions = await deps.permissions.listForClient(clientId);
  const source = arraySource(`${keys.clientPartition(clientId)}|${keys.permissionPrefix}`, permissions.map(clientPermissionView), {
    expand: (views) => addResourceAndScopeData(deps, views),
  });
  return listCollection({ spec: clientPermissionsCollection, source, params, cursorKey });
}
