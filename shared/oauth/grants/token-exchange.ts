import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { MAX_ID_TOKEN_LENGTH } from '../../federation/verify-provider-id-token.ts';
import { validate } from '../../http/validate.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { OAuthClient } from '../oauth-deps.ts';
import { exchangeExternalToken } from './token-exchange-external.ts';
import { exchangeOwnToken } from './token-exchange-own.ts';
import { ACCESS_TOKEN_TYPE, TOKEN_TYPE_PREFIX } from './token-exchange-types.ts';
import { defineGrant } from './token-grant.ts';

/** A provider's name or a token-type URN (RFC 8693 §3); both are short. */
const tokenType = v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(256));

/**
 * RFC 8693 token exchange (docs/contract.md §5.1, §7.7; docs/federation.md "Token exchange"):
 * `subject_token_type` says what `subject_token` is:
 * - a provider's `provider_name`, or the `id_token` / `jwt` URNs (the provider found by the token's
 *   `iss`): an ID token of one of the tenant's enabled identity providers, verified against its
 *   keys, issuer, audience and times; the user found by its identity, or created and linked;
 * - the `access_token` URN: an active user access token of this service, of the same tenant,
 *   exchanged for another audience with scopes never widened.
 * The answer is an access token alone (`issued_token_type`, RFC 8693 §2.2.1): no ID token, it is
 * not a login, and no refresh token. Any problem with the subject token is 400 `invalid_request`
 * (RFC 8693 §2.2.2, docs/contract.md §7.7). Public clients send `client_id` alone, confidential
 * ones authenticate (docs/contract.md §7.8): the token endpoint's client rules.
 */
export const tokenExchange = defineGrant({
  name: 'token_exchange',
  aliases: ['urn:ietf:params:oauth:grant-type:token-exchange'],
  params: v.looseObject({
    // docs/federation.md: an ID token is at most 16 KB; ours are far smaller.
    subject_token: v.pipe(v.string(), v.minLength(1, 'is required'), v.maxLength(MAX_ID_TOKEN_LENGTH)),
    subject_token_type: tokenType,
    requested_token_type: v.optional(tokenType),
    actor_token: v.optional(v.pipe(v.string(), v.maxLength(MAX_ID_TOKEN_LENGTH))),
    actor_token_type: v.optional(tokenType),
  }),
  preload: (request) => {
    const audience = request.audience ?? request.resource;
    return audience ? { audience } : {};
  },

  async handle({ client }, request, deps, { headers, exchange }) {
    // RFC 8693 §2.1: only what we issue may be asked for; delegation (an actor) is not offered.
    if (request.requested_token_type !== undefined && request.requested_token_type !== ACCESS_TOKEN_TYPE) {
      throw oauthError(400, 'invalid_request', `body.requested_token_type: only ${ACCESS_TOKEN_TYPE} is issued.`);
    }
    if (request.actor_token !== undefined || request.actor_token_type !== undefined) {
      throw oauthError(400, 'invalid_request', 'body.actor_token: delegation is not supported.');
    }
    const tenantId = exchangeTenant(client, headers, exchange.multiTenant);
    const type = request.subject_token_type;
    if (type === ACCESS_TOKEN_TYPE) return exchangeOwnToken(client, tenantId, request, deps);
    // docs/contract.md §7.7: an unsupported type (refresh_token, saml1, saml2, ...) is invalid_request.
    if (type.startsWith(TOKEN_TYPE_PREFIX) && !ID_TOKEN_TYPES.has(type)) {
      throw oauthError(400, 'invalid_request', 'body.subject_token_type: this token type is not supported.');
    }
    return exchangeExternalToken(client, tenantId, request, deps, exchange);
  },
});

const ID_TOKEN_TYPES: ReadonlySet<string> = new Set([`${TOKEN_TYPE_PREFIX}id_token`, `${TOKEN_TYPE_PREFIX}jwt`]);

const TenantHeader = v.optional(v.pipe(v.string(), v.uuid('must be a UUID')));

/**
 * docs/contract.md §7.7: the exchange works in the client's tenant; a global client in multi-tenant
 * mode picks it with the `tenant_id` header (default: the default tenant), as at the management
 * API (docs/contract.md §4). A tenant-bound client naming another tenant is refused.
 */
export function exchangeTenant(client: OAuthClient, headers: Record<string, string | undefined>, multiTenant: boolean): string {
  if (!multiTenant) return client.tenant_id;
  const requested = validate(TenantHeader, headers.tenant_id, 'header.tenant_id');
  if (client.is_global) return requested ?? DEFAULT_TENANT_ID;
  if (requested !== undefined && requested !== client.tenant_id) {
    throw oauthError(400, 'invalid_request', 'header.tenant_id: this client may only act on its own tenant.');
  }
  return client.tenant_id;
}
