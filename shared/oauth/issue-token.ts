import { oauthError } from '../errors.ts';
import { validate } from '../http/validate.ts';
import type { EventOrigin } from '../records/event-record.ts';
import { presentedCredentials, verifyCredentials } from './authenticate-client.ts';
import { findGrant } from './grants/grant-registry.ts';
import type { TokenExchangeDeps } from './grants/token-exchange-deps.ts';
import type { TokenRequest } from './grants/token-grant.ts';
import type { OAuthDeps } from './oauth-deps.ts';
import type { TokenResponse } from './token-response.ts';

/**
 * The token endpoint as a pipeline of named rules (node-oidc-provider's actions/token.js): the
 * grant's own parameters → one cold read for everything below → authenticate the client → known
 * grant → grant allowed for the client → its DPoP proof, if any → the grant's handler. Every grant rule lives in its module
 * under grants/; this only dispatches.
 */
export async function issueToken(
  headers: Record<string, string | undefined>,
  body: TokenRequest,
  deps: OAuthDeps,
  exchange: () => Promise<TokenExchangeDeps>,
  origin: EventOrigin = {},
): Promise<TokenResponse> {
  const credentials = presentedCredentials(headers, body);
  const grant = findGrant(body.grant_type);
  const request = grant?.params ? { ...body, ...validate(grant.params, body, 'body') } : body;
  // One DynamoDB read for everything below when this container is cold.
  await deps.preload(credentials.clientId, grant?.preload?.(request) ?? {});
  const authenticated = await verifyCredentials(credentials, deps, '/token');
  if (!grant) throw oauthError(400, 'unsupported_grant_type', 'body.grant_type: is not a supported grant type.');
  // docs/contract.md §5.1 / §7.7: the client lists the grant's short name, whatever spelling was sent.
  if (!authenticated.client.grant_types.includes(grant.name)) {
    throw oauthError(400, 'unauthorized_client', `body.grant_type: the client may not use ${grant.name}.`);
  }
  // RFC 9449 §5: a DPoP proof binds what the grant issues; checked once the client may use the grant.
  // Its code loads with the first request that needs it: a Bearer token loads none of it.
  const dpop =
    headers.dpop !== undefined || authenticated.client.dpop_bound_access_tokens
      ? await (await import('./dpop/token-dpop.ts')).dpopAtToken(headers, authenticated.client, deps)
      : undefined;
  const tokens = await grant.handle(authenticated, request, deps, { headers, exchange, dpop, origin });
  deps.metrics.count('TokensIssued', ['grant_type', grant.name]);
  return tokens;
}
