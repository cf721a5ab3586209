import { conflict, insufficientScope } from '../../errors.ts';
import type { RecordParams } from '../../lists/index.ts';
import type { ClientPatch, ClientRecord } from '../../records/client-record.ts';
import { type DeepPartial, mergePatch } from '../../store/core/merge-patch.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { assertMergedJsonFits } from '../kit/fields.ts';
import { presentRecord } from '../kit/present-record.ts';
import { assertMayActAs } from '../no-escalation.ts';
import type { UpdateClientInput } from './client-body-schemas.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientEntity } from './client-entity.ts';
import {
  assertClientAuthFits,
  assertDefaultClientKept,
  assertFutureExpiry,
  assertGrantTypesFit,
  assertMayChange,
  changesClientAuth,
} from './client-guards.ts';
import { OPEN_METADATA_BYTES } from './client-metadata-schema.ts';
import { clientView } from './client-view.ts';
import { tokenDeliveryGuard } from './management-api-clients.ts';
import { resolveClientTenant, resolveIsGlobal } from './tenant-rules.ts';

/**
 * PATCH (and PUT) /clients/{client_id} (spec §4.3, docs/contract.md §6): merges the body into the record (a
 * field left out keeps its value; objects merge, arrays replace) with the repository's version
 * condition and re-merge on a lost race, so concurrent PATCHes of different fields all land.
 *
 * The rules are checked against the merge of the body into the record as read: tenant moves
 * (tenant-rules.ts; only for a client without resource links, whose links would otherwise point
 * into another tenant: 409), the Default Client's invariants (403), grant types of a public client
 * (400), and who receives the tokens of a client linked to the management API
 * (management-api-clients.ts: every management scope, 403), the client-authentication members
 * (client-guards.ts: 400; changing them is a key change, `update:client_keys` and no escalation,
 * 403). A public client that becomes
 * confidential gets a new secret first (shown in this response), so there is no moment at which
 * it is confidential with a stale secret.
 */
export async function updateClient(
  deps: ClientDeps,
  access: ManagementAccess,
  clientId: string,
  body: UpdateClientInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const { ctx } = access;
  const current = await loadVisible(deps.clients, ctx, clientId, 'Client');
  assertMayChange(ctx, current);
  const patch = toClientPatch(body);
  const next = mergePatch<ClientRecord>(current, patch as DeepPartial<ClientRecord>);
  assertDefaultClientKept(current, next);
  if (body.is_global !== undefined) resolveIsGlobal(ctx, body.is_global);
  if (next.tenant_id !== current.tenant_id) {
    await resolveClientTenant(deps, ctx, next.tenant_id);
    if (current.aggregations.resources > 0) {
      throw conflict('body.tenant_id: the client has resources authorized in its tenant; revoke them before moving it.');
    }
  }
  assertGrantTypesFit(next.is_public, next.client_metadata.grant_types);
  assertOpenMetadataFits(next);
  assertFutureExpiry(body.client_secret_expires_at, next.is_public, deps.now());
  assertClientAuthFits(next.is_public, next.client_metadata);
  // How the client authenticates is its credential, as its secret is (change-client-secret.ts).
  const keyGuard = async (latest: ClientRecord, merged: ClientRecord) => {
    if (!changesClientAuth(latest, merged)) return;
    if (!access.rotatesKeys) throw insufficientScope('update:client_keys');
    await assertMayActAs(ctx, clientId, () => deps.managementScopesOf(clientId));
  };
  await keyGuard(current, next);
  // A client linked to the management API: who receives its tokens is every management scope's business.
  const deliveryGuard = await tokenDeliveryGuard(deps, ctx, clientId, body);
  await deliveryGuard?.(current, next);

  let secret: string | undefined;
  if (current.is_public && !next.is_public) {
    // The new secret is shown in this response: that is a key change (docs/contract.md §6 scopes).
    if (!access.rotatesKeys) throw insufficientScope('update:client_keys');
    // ...and the client's identity: the caller must hold what the client is granted (no-escalation.ts).
    await assertMayActAs(ctx, clientId, () => deps.managementScopesOf(clientId));
    secret = deps.generateSecret();
    await deps.clients.changeSecret(clientId, secret, ctx.actor, { expiresAt: body.client_secret_expires_at ?? null });
  }
  const updated = await deps.clients.update(clientId, patch, ctx.actor, {
    validate: async (latest, merged) => {
      assertDefaultClientKept(latest, merged);
      assertGrantTypesFit(merged.is_public, merged.client_metadata.grant_types);
      assertOpenMetadataFits(merged);
      assertClientAuthFits(merged.is_public, merged.client_metadata);
      await keyGuard(latest, merged);
      await deliveryGuard?.(latest, merged);
    },
    linksUnchanged: deliveryGuard !== undefined,
  });
  deps.forget(clientId);
  const view = secret !== undefined ? clientView(updated, { kind: 'plaintext', secret }) : clientEntity.view(updated, access);
  return presentRecord(clientEntity, deps, access, updated, params, view);
}

/** The open members of `client_metadata` merge key by key: the merged value keeps their bound. */
function assertOpenMetadataFits(merged: ClientRecord): void {
  for (const [member, maxBytes] of Object.entries(OPEN_METADATA_BYTES)) {
    assertMergedJsonFits(merged.client_metadata[member as keyof typeof OPEN_METADATA_BYTES], maxBytes, `body.client_metadata.${member}`);
  }
}

/** The validated body as the repository's patch; `client_type` never reaches here (schema: 400). */
function toClientPatch(body: UpdateClientInput): ClientPatch {
  const { client_type: _, ...rest } = body;
  // `client_description: null` clears it (stored as null; merge-patch.ts keeps null as a value).
  return rest as ClientPatch;
}
