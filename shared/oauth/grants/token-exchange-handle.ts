import * as v from 'valibot';
import { oauthError } from '../../errors.ts';
import { validate } from '../../http/validate.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import type { AuthenticatedClient } from '../authenticate-client.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { exchangeExternalToken } from './token-exchange-external.ts';
import { exchangeOwnToken } from './token-exchange-own.ts';
import { ACCESS_TOKEN_TYPE, TOKEN_TYPE_PREFIX, type TokenExchangeRequest } from './token-exchange-types.ts';
import type { GrantContext } from './token-grant.ts';

/**
 * The token-exchange grant's work (token-exchange.ts says what it is), in a module of its own that
 * the grant imports dynamically: the bundler makes it a chunk the token function loads at its
 * first exchange, not at every cold start (docs/benchmarks.md "Token function bundle, token exchange").
 */
export async function handleTokenExchange(
  { client }: AuthenticatedClient,
  request: TokenExchangeRequest,
  deps: OAuthDeps,
  { headers, exchange: exchangeDeps, origin }: GrantContext,
): Promise<TokenResponse> {
  // RFC 8693 §2.1: only what we issue may be asked for; delegation (an actor) is not offered.
  if (request.requested_token_type !== undefined && request.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw oauthError(400, 'invalid_request', `body.requested_token_type: only ${ACCESS_TOKEN_TYPE} is issued.`);
  }
  if (request.actor_token !== undefined || request.actor_token_type !== undefined) {
    throw oauthError(400, 'invalid_request', 'body.actor_token: delegation is not supported.');
  }
  const exchange = await exchangeDeps();
  const tenantId = exchangeTenant(client, headers, exchange.multiTenant);
  const type = request.subject_token_type;
  if (type === ACCESS_TOKEN_TYPE) return exchangeOwnToken(client, tenantId, request, deps, origin);
  // docs/contract.md §7.7: an unsupported type (refresh_token, saml1, saml2, ...) is invalid_request.
  if (type.startsWith(TOKEN_TYPE_PREFIX) && !ID_TOKEN_TYPES.has(type)) {
    throw oauthError(400, 'invalid_request', 'body.subject_token_type: this token type is not supported.');
  }
  return exchangeExternalToken(client, tenantId, request, deps, exchange, origin);
}

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
