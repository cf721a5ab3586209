import type { RecordParams } from '../../lists/index.ts';
import type { ClientMetadata } from '../../records/client-record.ts';
import { defaultGrantTypes } from '../../store/clients/client-defaults.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateClientInput } from './client-body-schemas.ts';
import type { ClientDeps } from './client-deps.ts';
import { clientEntity } from './client-entity.ts';
import { assertClientAuthFits, assertFutureExpiry, assertGrantTypesFit } from './client-guards.ts';
import { clientView, NO_SECRET } from './client-view.ts';
import { resolveClientTenant, resolveIsGlobal } from './tenant-rules.ts';

/**
 * POST /clients (spec §4.3): 201 with the Client. Spec defaults: is_public false, is_global true
 * (false for a tenant-bound caller: tenant-rules.ts). A confidential client gets a 256-bit secret
 * (docs/design.md §4), shown in this response whatever the caller's scopes: it is the one moment the
 * creator learns it without `read:client_keys`.
 */
export async function createClient(
  deps: ClientDeps,
  access: ManagementAccess,
  input: CreateClientInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const { ctx } = access;
  const tenantId = await resolveClientTenant(deps, ctx, input.tenant_id);
  const isGlobal = resolveIsGlobal(ctx, input.is_global);
  const isPublic = input.is_public ?? false;
  assertGrantTypesFit(isPublic, input.client_metadata?.grant_types ?? defaultGrantTypes(isPublic));
  assertFutureExpiry(input.client_secret_expires_at, isPublic, deps.now());
  assertClientAuthFits(isPublic, input.client_metadata);
  const secret = isPublic ? undefined : deps.generateSecret();

  const record = await deps.clients.create(
    {
      tenant_id: tenantId,
      client_name: input.client_name,
      ...(input.client_type !== undefined ? { client_type: input.client_type } : {}),
      ...(input.client_description !== undefined && input.client_description !== null
        ? { client_description: input.client_description }
        : {}),
      // Inner objects may be partial here; the store fills each from its defaults (client-defaults.ts).
      ...(input.client_metadata !== undefined ? { client_metadata: input.client_metadata as Partial<ClientMetadata> } : {}),
      ...(input.app_metadata !== undefined ? { app_metadata: input.app_metadata } : {}),
      is_public: isPublic,
      ...(input.is_first_party !== undefined ? { is_first_party: input.is_first_party } : {}),
      is_global: isGlobal,
      ...(secret !== undefined ? { client_secret: secret } : {}),
      ...(input.client_secret_expires_at !== undefined ? { client_secret_expires_at: input.client_secret_expires_at } : {}),
    },
    ctx.actor,
  );
  // A token request for this id may have cached "no such client" a moment ago.
  deps.forget(record.id);
  return presentRecord(
    clientEntity,
    deps,
    access,
    record,
    params,
    clientView(record, secret !== undefined ? { kind: 'plaintext', secret } : NO_SECRET),
  );
}
