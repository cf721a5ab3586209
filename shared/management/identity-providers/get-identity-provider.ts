import type { RecordParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { presentRecord } from '../kit/present-record.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';
import { identityProviderEntity } from './identity-provider-entity.ts';
import { loadVisibleProvider } from './identity-provider-rules.ts';

/** GET /tenants/{tenant_id}/identity-providers/{provider_id} (docs/contract.md §6). */
export async function getIdentityProvider(
  deps: IdentityProviderDeps,
  access: ManagementAccess,
  tenantId: string,
  providerId: string,
  params: RecordParams,
): Promise<Record<string, unknown>> {
  const provider = await loadVisibleProvider(deps, access.ctx, tenantId, providerId);
  return presentRecord(identityProviderEntity, deps, access, provider, params);
}
