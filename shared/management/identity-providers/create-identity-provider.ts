import { notImplemented } from '../../errors.ts';
import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { CreateIdentityProviderInput } from './identity-provider-body-schemas.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';
import { identityProviderEntity } from './identity-provider-entity.ts';
import { assertOpenIdScope, assertProviderUrls, assertVisibleTenant } from './identity-provider-rules.ts';

/**
 * POST /tenants/{tenant_id}/identity-providers (docs/contract.md §6, §7.5, §7.7): 201 with the provider.
 * A SAML provider is 501 and nothing is stored; the URLs must pass the stage's policy; no network
 * call is made; the client secret is sealed before it reaches the store; a taken `provider_name`
 * is 409 (the store's marker).
 */
export async function createIdentityProvider(
  deps: IdentityProviderDeps,
  access: ManagementAccess,
  tenantId: string,
  input: CreateIdentityProviderInput,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  await assertVisibleTenant(deps, access.ctx, tenantId);
  if (input.provider_type !== 'oidc') throw notImplemented('SAML identity providers are not implemented; provider_type must be "oidc".');
  assertProviderUrls(deps, input);
  assertOpenIdScope(input.scopes);
  const { client_secret, provider_type: _, ...fields } = input;
  const record = await deps.providers.create(
    {
      ...fields,
      tenant_id: tenantId,
      ...(client_secret !== undefined ? { client_secret_sealed: await deps.secretBox.seal(client_secret) } : {}),
    },
    access.ctx.actor,
  );
  return presentRecord(identityProviderEntity, deps, access, record, params);
}
