import { badRequest } from '../../errors.ts';
import type { RecordParams } from '../../lists/index.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import { assertMayActAs } from '../no-escalation.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientEntity } from './client-entity.ts';
import { assertMayChange } from './client-guards.ts';
import { clientView } from './client-view.ts';

/**
 * POST /clients/{client_id}/secret (spec §4.3, docs/contract.md §6): a new 256-bit secret replaces the old
 * one at once (its hash is what /token verifies, and this container's client cache is dropped).
 * The new secret starts without expiry: it must not inherit a deadline set for the old one.
 * 200 with the Client carrying the new secret. A public client has no secret: 400.
 */
export async function changeClientSecret(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const client = await loadVisible(deps.clients, access.ctx, clientId, 'Client');
  assertMayChange(access.ctx, client);
  if (client.is_public) throw badRequest('path.client_id: a public client has no secret to change.');
  // The new secret is the client's identity: the caller must hold what the client holds.
  await assertMayActAs(access.ctx, client.id, () => deps.managementScopesOf(client.id));
  const secret = deps.generateSecret();
  const updated = await deps.clients.changeSecret(clientId, secret, access.ctx.actor, { expiresAt: null });
  deps.forget(clientId);
  return presentRecord(clientEntity, deps, access, updated, params, clientView(updated, { kind: 'plaintext', secret }));
}
