import type { OAuthClient, TokenResource } from '../../oauth/oauth-deps.ts';
import type { ClientWithGrants } from '../../store/token-path/client-token-reads.ts';
import type { ResourceTokenView } from '../../store/token-path/resource-token-view.ts';

/** A stored URL list (client-metadata-schema.ts validated it on the way in); anything else is none. */
const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((u): u is string => typeof u === 'string') : []);

/** The token path's view of a client: what `/token` and introspection check, nothing else. */
export function clientOfRecord({ client, resources, grants }: ClientWithGrants): OAuthClient {
  const m = client.client_metadata;
  return {
    id: client.id,
    tenant_id: client.tenant_id,
    is_public: client.is_public,
    is_global: client.is_global,
    grant_types: client.client_metadata.grant_types,
    secret_hash: client.secret_hash,
    client_secret_expires_at: client.client_secret_expires_at,
    resources,
    grants,
    refresh_token: client.client_metadata.refresh_token,
    id_token_lifetime: client.client_metadata.id_token.expiration_lifetime,
    redirect_uris: stringList(client.client_metadata.urls?.redirect_uris),
    is_first_party: client.is_first_party,
    token_endpoint_auth_method: m.token_endpoint_auth_method ?? undefined,
    jwks: m.jwks ?? undefined,
    jwks_uri: m.jwks_uri ?? undefined,
    id_token_signed_response_alg: m.id_token_signed_response_alg ?? 'RS256',
    require_pushed_authorization_requests: m.require_pushed_authorization_requests === true,
    dpop_bound_access_tokens: m.dpop_bound_access_tokens === true,
  };
}

/** The token path's view of a Resource; an HS256 secret is opened by `open` (sealed at rest). */
export async function resourceOfView(v: ResourceTokenView, open: (sealed: string) => Promise<string>): Promise<TokenResource> {
  const sealed = v.signing_algorithm === 'HS256' ? v.signing_secret : undefined;
  return {
    id: v.id,
    tenant_id: v.tenant_id,
    identifier_url: v.identifier_url,
    signing_algorithm: v.signing_algorithm,
    signing_secret: sealed ? await open(sealed) : undefined,
    token_lifetime: v.token_lifetime,
    rbac_enabled: v.rbac_enabled,
    is_system: v.is_system,
    scope_names: v.scope_names,
  };
}
