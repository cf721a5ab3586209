import { clientsCollection, listCollection, pagedSource, type ListEnvelope, type ListParams } from '../../lists/index.ts';
import type { ClientRecord } from '../../records/client-record.ts';
import { keys } from '../../store/keys.ts';
import type { ManagementContext } from '../management-context.ts';
import { addClientChildren } from './client-children.ts';
import type { ClientDeps } from './client-deps.ts';
import { mayReadSecret } from './client-guards.ts';
import { clientView, NO_SECRET } from './client-view.ts';
import { revealClientSecrets } from './reveal-client-secrets.ts';

/**
 * GET /clients (spec §4.3, API.md §3): the request's tenant's clients through the shared list
 * machinery (q, sort, fields, expand, total_count, offset/limit, cursor). For a `read:client_keys`
 * caller the secrets of the returned page only are opened, after `fields`.
 */
export async function listClients(deps: ClientDeps, ctx: ManagementContext, params: ListParams, cursorKey: Buffer, readsKeys: boolean): Promise<ListEnvelope> {
  const tenantId = ctx.tenantId;
  const partition = keys.collection(tenantId, 'CLIENTS');
  const source = pagedSource({
    id: partition,
    listPage: (request) => deps.clients.listPage(tenantId, request),
    count: () => deps.clients.count(tenantId),
    keyOf: (c: ClientRecord) => ({ ...keys.client(c.id), GSI1PK: partition, GSI1SK: c.id }),
    view: (c: ClientRecord) => clientView(c, mayReadSecret(ctx, c, readsKeys) ? { kind: 'sealed' } : NO_SECRET),
    expand: (views) => addClientChildren(deps, views),
  });
  const envelope = await listCollection({ spec: clientsCollection, source, params, cursorKey });
  await revealClientSecrets(envelope.items, deps.secretBox);
  return envelope;
}
