import type { ListEnvelope, ListParams } from '../../lists/index.ts';
import type { ManagementAccess } from '../kit/access.ts';
import { listRecords } from '../kit/present-record.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';
import { identityProviderEntity } from './identity-provider-entity.ts';
import { assertVisibleTenant } from './identity-provider-rules.ts';

/** GET /tenants/{tenant_id}/identity-providers (docs/contract.md §3, §6): the tenant's providers, id order by default. */
export async function listIdentityProviders(
  deps: IdentityProviderDeps,
  access: ManagementAccess,
  tenantId: string,
  params: ListParams,
): Promise<ListEnvelope> {
  await assertVisibleTenant(deps, access.ctx, tenantId);
  return listRecords(identityProviderEntity, deps, access, deps.providers.collection(tenantId), params, await deps.cursorKey());
}
