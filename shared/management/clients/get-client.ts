import type { RecordParams } from '../../lists/index.ts';
import type { ManagementContext } from '../management-context.ts';
import type { ClientDeps } from './client-deps.ts';
import { mayReadSecret } from './client-guards.ts';
import { NO_SECRET } from './client-view.ts';
import { loadVisibleClient } from './load-visible-client.ts';
import { presentClient } from './present-client.ts';

/**
 * GET /clients/{client_id} (spec §4.3). `client_secret` only for a `read:client_keys` caller
 * (DESIGN.md §4), opened only if `fields` keeps it.
 */
export async function getClient(deps: ClientDeps, ctx: ManagementContext, clientId: string, params: RecordParams, readsKeys: boolean): Promise<Record<string, unknown>> {
  const client = await loadVisibleClient(deps, ctx, clientId);
  return presentClient(deps, client, params, mayReadSecret(ctx, client, readsKeys) ? { kind: 'sealed' } : NO_SECRET);
}
