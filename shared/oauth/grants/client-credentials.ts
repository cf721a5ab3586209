import { oauthError } from '../../errors.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import { mintAccessToken } from '../mint-access-token.ts';
import type { OAuthClient, OAuthDeps, TokenResource } from '../oauth-deps.ts';
import { parseScope } from '../parse-scope.ts';
import { defineGrant } from './token-grant.ts';

/**
 * RFC 6749 §4.4 client credentials, with the Resource chosen by `audience` (Auth0's name) or RFC
 * 8707 `resource`. Scopes = requested ∩ the client's permissions on that Resource; nothing
 * requested = everything granted; anything requested and not granted = invalid_scope (docs/contract.md §5.1).
 * Its parameters (`scope`, `audience`, `resource`) are the shared ones, so it declares none.
 */
export const clientCredentials = defineGrant({
  name: 'client_credentials',
  // The Resource is read with the client (docs/tokens.md "Hot path and caching"), and so is its
  // trailing-slash twin, for the hint below: one more key when the Resource is read, no call more.
  preload: (request) => {
    const audience = request.audience ?? request.resource;
    if (!audience) return {};
    const twin = slashTwin(audience);
    return twin ? { audience, audienceAlternates: [twin] } : { audience };
  },

  async handle({ client }, request, deps, context) {
    // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
    if (client.is_public) throw oauthError(400, 'unauthorized_client', 'Public clients cannot use client_credentials.');
    if (request.audience && request.resource && request.audience !== request.resource) {
      throw oauthError(400, 'invalid_request', 'body.audience: differs from body.resource; send one.');
    }
    const audience = request.audience ?? request.resource;
    if (!audience) throw oauthError(400, 'invalid_request', 'body.audience: is required (or resource, RFC 8707).');

    // The management API is the system resource of the default tenant, shared by every tenant
    // (docs/contract.md §4); its identifier names nothing else. Any other audience is a resource of the
    // client's own tenant.
    const resource =
      audience === deps.managementAudience
        ? systemOnly(await deps.findResource(DEFAULT_TENANT_ID, audience))
        : await deps.findResource(client.tenant_id, audience);
    // RFC 8707 §2: an unknown resource, or one the client may not use, is invalid_target.
    // docs/contract.md §8: errors name the field, never echo what was sent.
    if (!resource)
      throw oauthError(400, 'invalid_target', `body.audience: names no resource of this tenant.${slashHint(client, audience, deps)}`);
    if (!client.resources.has(resource.id)) {
      throw oauthError(400, 'invalid_target', 'body.audience: the client is not authorized for this resource.');
    }
    const granted = new Set<string>();
    for (const scopeId of client.grants.get(resource.id) ?? []) {
      const name = resource.scope_names[scopeId];
      if (name) granted.add(name);
    }
    const requested = parseScope(request.scope);
    const denied = requested.filter((s) => !granted.has(s));
    // docs/contract.md §8: the field is named, the scopes are not echoed.
    if (denied.length) throw oauthError(400, 'invalid_scope', 'body.scope: names a scope not granted to this client on this resource.');
    const scopes = requested.length ? requested : [...granted];

    const minted = await mintAccessToken(
      {
        issuer: deps.issuer,
        subject: client.id,
        clientId: client.id,
        tenantId: client.tenant_id,
        resource,
        scopes,
        jkt: context.dpop?.jkt,
        now: deps.now(),
      },
      deps.keys,
    );
    return {
      access_token: minted.token,
      token_type: context.dpop ? 'DPoP' : 'Bearer',
      expires_in: minted.expiresIn,
      // RFC 6749 §5.1: scope is required in the response when it differs from the request.
      ...(requested.length === scopes.length ? {} : { scope: scopes.join(' ') }),
    };
  },
});

const systemOnly = (r: TokenResource | undefined) => (r?.is_system ? r : undefined);

/** The same identifier with its trailing slash removed, or with one added. */
const slashTwin = (audience: string): string => (audience.endsWith('/') ? audience.slice(0, -1) : `${audience}/`);

/**
 * Identifiers are compared exactly (RFC 8707 §2 names a resource by its URI), so
 * `https://api.example.com` and `https://api.example.com/` are two audiences. When the other
 * spelling is the management API, or a Resource of the client's tenant that this container holds
 * (the twin was read with the client, in the same call), the error says so: the most common
 * mistake with an audience. It costs no read of its own, so the error path is no slower.
 */
function slashHint(client: OAuthClient, audience: string, deps: OAuthDeps): string {
  const twin = slashTwin(audience);
  const known = twin === deps.managementAudience || deps.cachedResource(client.tenant_id, twin) !== undefined;
  return twin && known ? ' A resource whose identifier differs only by a trailing slash exists.' : '';
}
