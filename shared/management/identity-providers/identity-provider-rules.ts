import { badRequest, notFound } from '../../errors.ts';
import { ProviderError } from '../../federation/federation-errors.ts';
import { checkLiteralHost } from '../../federation/provider-address.ts';
import { checkProviderUrl } from '../../federation/provider-url.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import type { ManagementContext } from '../management-context.ts';
import type { IdentityProviderDeps } from './identity-provider-deps.ts';

/**
 * docs/tenants.md "Who may call": a global caller of a multi-tenant stage reaches every tenant's
 * providers; any other caller only its own tenant's. Another tenant's path is a 404 exactly like an
 * unknown tenant, so a tenant-bound caller learns nothing about which tenants exist.
 */
export async function assertVisibleTenant(
  deps: Pick<IdentityProviderDeps, 'tenants' | 'multiTenant'>,
  ctx: ManagementContext,
  tenantId: string,
) {
  const visible = (deps.multiTenant && ctx.isGlobal) || tenantId === ctx.tenantId;
  if (!visible || !(await deps.tenants.get(tenantId))) throw notFound('Tenant not found.');
}

/** The provider at `/tenants/{t}/identity-providers/{id}`, or 404 (the store's read names the tenant). */
export async function loadVisibleProvider(
  deps: Pick<IdentityProviderDeps, 'tenants' | 'multiTenant' | 'providers'>,
  ctx: ManagementContext,
  tenantId: string,
  id: string,
): Promise<IdentityProviderRecord> {
  await assertVisibleTenant(deps, ctx, tenantId);
  const provider = await deps.providers.byId(tenantId, id);
  if (!provider) throw notFound('Identity provider not found.');
  return provider;
}

export interface ProviderUrls {
  issuer?: string | undefined;
  jwks_uri?: string | null | undefined;
  discovery_url?: string | null | undefined;
}

/**
 * docs/contract.md §7.5 and docs/federation.md "URL policy": the configured URLs pass the policy the
 * reader applies (https; loopback http only where the stage allows it; no credentials, no
 * fragment; an IP-literal host must be public), so a provider that could never be read is refused
 * when it is written, with a 400 naming the field. Nothing is fetched (docs/contract.md §7.7).
 */
export function assertProviderUrls(deps: Pick<IdentityProviderDeps, 'allowLoopbackHttp'>, urls: ProviderUrls): void {
  const policy = { allowLoopbackHttp: deps.allowLoopbackHttp };
  for (const field of ['issuer', 'jwks_uri', 'discovery_url'] as const) {
    const raw = urls[field];
    if (raw === undefined || raw === null) continue;
    try {
      const url = checkProviderUrl(raw, policy);
      checkLiteralHost(url.hostname, deps.allowLoopbackHttp);
      // OIDC Discovery §2: an issuer is an https URL with no query and no fragment.
      if (field === 'issuer' && url.search) throw badRequest('body.issuer: must not carry a query (OpenID Connect Discovery 1.0 §2).');
    } catch (err) {
      if (err instanceof ProviderError) throw badRequest(`body.${field}: ${err.message}`);
      throw err;
    }
  }
}

/**
 * OIDC Core §3.1.2.1: an authentication request without `openid` is not OpenID Connect, so a
 * provider's `scopes` must hold it (checked here rather than in the body schema, which says only
 * what a scope list looks like).
 */
export function assertOpenIdScope(scopes: readonly string[] | undefined): void {
  if (scopes !== undefined && !scopes.includes('openid'))
    throw badRequest('body.scopes: must include "openid" (OpenID Connect Core 1.0 §3.1.2.1).');
}
