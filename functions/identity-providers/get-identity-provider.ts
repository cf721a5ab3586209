import { record } from '#shared/http/response-spec.ts';
import { getIdentityProvider } from '#shared/management/identity-providers/get-identity-provider.ts';
import { IdentityProviderPath } from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderEntity } from '#shared/management/identity-providers/identity-provider-entity.ts';
import { identityProviderRecordQuery } from '#shared/management/identity-providers/identity-provider-request.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { identityProviderDeps } from '#shared/wiring/identity-providers.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/tenants/{tenant_id}/identity-providers/{provider_id} (docs/contract.md §6). */
export const handler = managementHandler(
  { path: IdentityProviderPath, query: identityProviderRecordQuery, responses: { 200: record(identityProviderEntity) } },
  async (req) =>
    recordResponse(
      identityProviderEntity,
      200,
      await getIdentityProvider(identityProviderDeps(req.runtime), req.access, req.path.tenant_id, req.path.provider_id, req.query),
    ),
);
