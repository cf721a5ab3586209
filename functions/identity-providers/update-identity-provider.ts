import { record } from '#shared/http/response-spec.ts';
import { IdentityProviderPath, UpdateIdentityProviderBody } from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderEntity } from '#shared/management/identity-providers/identity-provider-entity.ts';
import { identityProviderRecordQuery } from '#shared/management/identity-providers/identity-provider-request.ts';
import { updateIdentityProvider } from '#shared/management/identity-providers/update-identity-provider.ts';
import { recordResponse } from '#shared/management/kit/present-record.ts';
import { identityProviderDeps } from '#shared/wiring/identity-providers.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** PATCH (and PUT) /identity/v1/tenants/{tenant_id}/identity-providers/{provider_id} (docs/contract.md §6): merge. */
export const handler = managementHandler(
  {
    path: IdentityProviderPath,
    body: UpdateIdentityProviderBody,
    query: identityProviderRecordQuery,
    responses: { 200: record(identityProviderEntity) },
  },
  async (req) =>
    recordResponse(
      identityProviderEntity,
      200,
      await updateIdentityProvider(
        identityProviderDeps(req.runtime),
        req.access,
        req.path.tenant_id,
        req.path.provider_id,
        req.body,
        req.query,
      ),
    ),
);
