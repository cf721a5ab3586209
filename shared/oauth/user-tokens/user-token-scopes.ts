import { oauthError } from '../../errors.ts';
import { userPermissions } from '../../rbac/user-permissions.ts';
import { RESOURCE_METADATA_DEFAULTS } from '../../records/resource-record.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { OAuthClient, OAuthDeps, TokenResource } from '../oauth-deps.ts';
import { parseScope } from '../parse-scope.ts';
import { assertMayCarryUserTokens } from './management-api-link.ts';

/** OIDC Core §5.4 / §11: always allowed to a user token; they decide the claims (docs/contract.md §7.1). */
export const OIDC_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

export interface UserTokenScopes {
  /** The Resource the access token is for (`{issuer}/userinfo` when no audience was named). */
  resource: TokenResource;
  /** The Resource's identifier as named (stored with a refresh token); null: `/userinfo`. */
  audience: string | null;
  /** Granted scopes, in the order requested: OIDC ones and the Resource's. */
  scopes: string[];
  /** The Resource's scopes among them, for `permissions` (RBAC Resources only). */
  permissions: string[] | undefined;
}

/**
 * The scopes of a user token (docs/contract.md §7.1, §7.6). OIDC scopes are always allowed. With
 * `audience` (or RFC 8707 `resource`), a requested scope is kept when it exists on that Resource
 * and, for an RBAC Resource, when the user effectively holds it (user-permissions.ts); the
 * management API is RBAC for users (docs/contract.md §7.6), so a user's management scopes are its
 * effective permissions on it, and a tenant admin's every management scope but `create:tenants` /
 * `delete:tenants` besides (§7.7; shared/rbac/user-permissions.ts). A scope the user may not have
 * is dropped, not refused (§7.6).
 * Without an audience the token is for `/userinfo` only and keeps only OIDC scopes. A client's
 * own permissions never apply to user tokens, nor do its Resource links (§7.1: the user's
 * permissions decide), except that the management API is issued only through a client authorized
 * on it (management-api-link.ts; `invalid_target` otherwise, also for a refresh through a client
 * unlinked since).
 */
export async function resolveUserScopes(
  user: UserRecord,
  client: Pick<OAuthClient, 'resources'>,
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined },
  deps: Pick<OAuthDeps, 'findResource' | 'managementAudience' | 'issuer' | 'rbac'>,
): Promise<UserTokenScopes> {
  const audience = requestedAudience(request);
  const requested = parseScope(request.scope);
  if (!audience) {
    return {
      resource: userinfoResource(deps.issuer),
      audience: null,
      scopes: requested.filter((s) => OIDC_SCOPES.has(s)),
      permissions: undefined,
    };
  }
  const resource = await audienceResource(user.tenant_id, audience, deps);
  assertMayCarryUserTokens(client, resource);
  const existing = new Set(Object.values(resource.scope_names));
  const rbac = resource.rbac_enabled || resource.is_system;
  const held = rbac ? await userPermissions(user, resource, deps.rbac) : existing;
  const ofResource = requested.filter((s) => !OIDC_SCOPES.has(s) && existing.has(s) && held.has(s));
  const kept = new Set(ofResource);
  return {
    resource,
    audience,
    scopes: requested.filter((s) => OIDC_SCOPES.has(s) || kept.has(s)),
    permissions: resource.rbac_enabled ? ofResource : undefined,
  };
}

/** `audience`, or RFC 8707 `resource`: one Resource, named by either (both differing: 400). */
export function requestedAudience(request: { audience?: string | undefined; resource?: string | undefined }): string | undefined {
  if (request.audience && request.resource && request.audience !== request.resource) {
    throw oauthError(400, 'invalid_request', 'body.audience: differs from body.resource; send one.');
  }
  return request.audience ?? request.resource;
}

/**
 * The Resource a user token's audience names in the tenant; the management API is the default
 * tenant's system resource, shared by every tenant (docs/contract.md §4). None: `invalid_target`.
 */
export async function audienceResource(
  tenantId: string,
  audience: string,
  deps: Pick<OAuthDeps, 'findResource' | 'managementAudience'>,
): Promise<TokenResource> {
  const resource =
    audience === deps.managementAudience
      ? systemOnly(await deps.findResource(DEFAULT_TENANT_ID, audience))
      : await deps.findResource(tenantId, audience);
  // RFC 8707 §2; docs/contract.md §8: the error names the field, never the value.
  if (!resource) throw oauthError(400, 'invalid_target', 'body.audience: names no resource of this tenant.');
  return resource;
}

const systemOnly = (r: TokenResource | undefined) => (r?.is_system ? r : undefined);

/**
 * The audience of a user token named for no Resource: `{issuer}/userinfo` (docs/contract.md §7.1), signed
 * with the service key (ES256) and living as long as a Resource's default token.
 */
export const userinfoResource = (issuer: string): TokenResource => ({
  id: 'userinfo',
  tenant_id: DEFAULT_TENANT_ID,
  identifier_url: `${issuer}/userinfo`,
  signing_algorithm: 'ES256',
  signing_secret: undefined,
  token_lifetime: RESOURCE_METADATA_DEFAULTS.token_lifetime,
  rbac_enabled: false,
  is_system: false,
  scope_names: {},
});
