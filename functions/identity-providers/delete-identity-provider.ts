import { noContent } from '#shared/http/response.ts';
import { NO_CONTENT } from '#shared/http/response-spec.ts';
import { deleteIdentityProvider } from '#shared/management/identity-providers/delete-identity-provider.ts';
import { IdentityProviderPath } from '#shared/management/identity-providers/identity-provider-body-schemas.ts';
import { identityProviderDeps } from '#shared/wiring/identity-providers.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** DELETE /identity/v1/tenants/{tenant_id}/identity-providers/{provider_id}: 204 (docs/contract.md §6). */
export const handler = managementHandler({ path: IdentityProviderPath, responses: NO_CONTENT }, async (req) => {
  await deleteIdentityProvider(identityProviderDeps(req.runtime), req.access, req.path.tenant_id, req.path.provider_id);
  return noContent();
});
