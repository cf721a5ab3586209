import { record } from '#shared/http/response-spec.ts';
import { createIdentityProvider } from '#shared/management/identity-providers/create-identity-provider.ts';
import { CreateIdentityProviderBody, IdentityProvidersPath } from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderEntity } from '#shared/management/identity-providers/identity-provider-entity.ts';
import { identityProviderRecordQuery } from '#shared/management/identity-providers/identity-provider-request.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { identityProviderDeps } from '#shared/wiring/identity-providers.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** POST /identity/v1/tenants/{tenant_id}/identity-providers (docs/contract.md §6, §7.5): 201 with the provider; SAML: 501. */
export const handler = managementHandler(
  {
    path: IdentityProvidersPath,
    body: CreateIdentityProviderBody,
    query: identityProviderRecordQuery,
    responses: { 201: record(identityProviderEntity) },
  },
  async (req) =>
    recordResponse(
      identityProviderEntity,
      201,
      await createIdentityProvider(identityProviderDeps(req.runtime), req.access, req.path.tenant_id, req.body, req.query),
    ),
);
