import type { RecordParams } from '../../lists/index.ts';
import type { IdentityProviderPatch } from '../../store/federation/identity-providers-repository.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { UpdateIdentityProviderInput } from './identity-provider-body-schemas.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';
import { identityProviderEntity } from './identity-provider-entity.ts';
import { assertOpenIdScope, assertProviderUrls, loadVisibleProvider } from './identity-provider-rules.ts';

/**
 * PATCH /tenants/{tenant_id}/identity-providers/{provider_id} (docs/contract.md §6): merges under the
 * version lock (concurrent PATCHes all land); a new name moves its marker in the same transaction
 * (409 when taken); `client_secret` sets or replaces the secret, `null` removes it.
 */
export async function updateIdentityProvider(
  deps: IdentityProviderDeps,
  access: ManagementAccess,
  tenantId: string,
  providerId: string,
  body: UpdateIdentityProviderInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await loadVisibleProvider(deps, access.ctx, tenantId, providerId);
  assertProviderUrls(deps, body);
  assertOpenIdScope(body.scopes);
  const { client_secret, provider_type: _, ...fields } = body;
  const patch: IdentityProviderPatch = {
    ...fields,
    ...(client_secret === null ? { client_secret_sealed: null } : {}),
    ...(typeof client_secret === 'string' ? { client_secret_sealed: await deps.secretBox.seal(client_secret) } : {}),
  };
  const updated = await deps.providers.update(tenantId, providerId, patch, access.ctx.actor);
  return presentRecord(identityProviderEntity, deps, access, updated, params);
}
