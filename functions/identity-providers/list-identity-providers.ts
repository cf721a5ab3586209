import { list } from '#shared/http/response-spec.ts';
import { IdentityProvidersPath } from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderEntity } from '#shared/management/identity-providers/identity-provider-entity.ts';
import { identityProviderListQuery } from '#shared/management/identity-providers/identity-provider-request.ts';
import { listIdentityProviders } from '#shared/management/identity-providers/list-identity-providers.ts';
import { listResponse } from '#shared/management/kit/present-record.ts';
import { identityProviderDeps } from '#shared/wiring/identity-providers.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/tenants/{tenant_id}/identity-providers (docs/contract.md §6, docs/federation.md "Identity providers"). */
export const handler = managementHandler(
  { path: IdentityProvidersPath, query: identityProviderListQuery, responses: { 200: list(identityProviderEntity) } },
  async (req) =>
    listResponse(
      identityProviderEntity,
      await listIdentityProviders(identityProviderDeps(req.runtime), req.access, req.path.tenant_id, req.query),
    ),
);
