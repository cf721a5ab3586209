import { notFound } from '../../errors.ts';
import type { ManagementAccess } from '../kit/access.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';
import { assertVisibleTenant } from './identity-provider-rules.ts';

/**
 * DELETE /tenants/{tenant_id}/identity-providers/{provider_id}: 204 (docs/contract.md §6). User
 * identities linked to the provider stay with their users: provider ids are UUIDv7 and never reused,
 * so they are never matched again, and they go with their user (docs/federation.md "Identity providers").
 */
export async function deleteIdentityProvider(
  deps: IdentityProviderDeps,
  access: ManagementAccess,
  tenantId: string,
  providerId: string,
): Promise<void> {
  await assertVisibleTenant(deps, access.ctx, tenantId);
  if (!(await deps.providers.delete(tenantId, providerId))) throw notFound('Identity provider not found.');
}
