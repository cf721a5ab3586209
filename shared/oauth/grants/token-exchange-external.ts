import { decodeJwt } from 'jose';
import { oauthError } from '../../errors.ts';
import { ProviderError, ProviderTokenError } from '../../federation/federation-errors.ts';
import { verifyProviderIdToken } from '../../federation/verify-provider-id-token.ts';
import type { EventOrigin } from '../../records/event-record.ts';
import type { IdentityProviderRecord } from '../../records/identity-provider-record.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { assertMayCarryUserTokens } from '../user-tokens/management-api-link.ts';
import { audienceResource, requestedAudience } from '../user-tokens/user-token-scopes.ts';
import type { TokenExchangeDeps } from './token-exchange-deps.ts';
import { issueExchangedToken } from './token-exchange-issue.ts';
import { type ExchangeRequest, TOKEN_TYPE_PREFIX } from './token-exchange-types.ts';

const invalid = (field: string, message: string) => oauthError(400, 'invalid_request', `body.${field}: ${message}`);
const noProvider = () => invalid('subject_token_type', 'names no enabled identity provider of this tenant.');

/**
 * Longest `iss` looked up: issuers are URLs (at most 2,048 characters by the URL policy, in practice
 * well under 100), and the lookup key holds it whole, within DynamoDB's 2,048-byte partition key.
 */
const MAX_ISSUER_BYTES = 1024;

/**
 * An ID token of one of the tenant's identity providers, exchanged for our access token for its
 * user (docs/federation.md "Token exchange"): the provider named, or found by the token's `iss`;
 * the token verified against that provider's keys, issuer, audience (its `audience`, else its
 * `client_id`: docs/contract.md §7.7), `exp`, `nbf` and `iat`; then the user linked to (provider,
 * `sub`), or created and linked. Nothing is stored before the token verified and the target
 * was found allowed.
 */
export async function exchangeExternalToken(
  client: OAuthClient,
  tenantId: string,
  request: ExchangeRequest,
  deps: OAuthDeps,
  exchange: TokenExchangeDeps,
  origin: EventOrigin = {},
): Promise<TokenResponse> {
  const provider = request.subject_token_type.startsWith(TOKEN_TYPE_PREFIX)
    ? await providerByIssuer(tenantId, request.subject_token, exchange)
    : await providerByName(tenantId, request.subject_token_type, exchange);
  const identity = await verifySubjectToken(provider, request.subject_token, deps, exchange);
  await checkTarget(client, tenantId, request, deps);
  const user = await exchange.resolveUser(provider, identity, client.id);
  // As the password grant answers a blocked user (docs/contract.md §5.1): invalid_grant.
  if (user.blocked) throw oauthError(400, 'invalid_grant', 'The user is blocked.');
  // A revocation of the user's tokens after the provider issued this token refuses it.
  return issueExchangedToken(client, user, request, new Date(identity.iat * 1000).toISOString(), deps, {
    kind: 'external',
    provider: provider.provider_name,
    origin,
  });
}

async function providerByName(tenantId: string, name: string, exchange: TokenExchangeDeps): Promise<IdentityProviderRecord> {
  const provider = await exchange.providers.byName(tenantId, name);
  // A disabled provider is as unknown as an absent one (docs/contract.md §7.7).
  if (!provider?.enabled) throw noProvider();
  return provider;
}

/**
 * The `id_token` and `jwt` URNs: the provider is the tenant's enabled one whose issuer is the
 * token's (unverified) `iss` and whose audience the token's `aud` contains. Two such providers
 * would make the user depend on which one is tried first, so that is refused: name the provider.
 */
async function providerByIssuer(tenantId: string, token: string, exchange: TokenExchangeDeps): Promise<IdentityProviderRecord> {
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(token);
  } catch {
    throw invalid('subject_token', 'is not a JWT.');
  }
  const { iss, aud } = claims;
  if (typeof iss !== 'string' || iss.length === 0 || Buffer.byteLength(iss) > MAX_ISSUER_BYTES) {
    throw invalid('subject_token', 'has no usable iss claim.');
  }
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  const candidates = (await exchange.providers.byIssuer(tenantId, iss)).filter(
    (p) => p.enabled && audiences.includes(p.audience ?? p.client_id),
  );
  if (candidates.length === 0) throw noProvider();
  if (candidates.length > 1) {
    throw invalid('subject_token_type', "several identity providers of this tenant match the token's issuer and audience; name one.");
  }
  return candidates[0]!;
}

/**
 * docs/contract.md §7.7, RFC 8693 §2.2.2: anything wrong with the token is `invalid_request`. A
 * provider that cannot be read (down, slow, misconfigured) is `invalid_request` too, with a message
 * saying so: the exchange cannot be made with this token now, the answer comes within the fetch's
 * timeouts (docs/federation.md "A provider that is down"), and a 5xx would blame this service.
 */
async function verifySubjectToken(provider: IdentityProviderRecord, token: string, deps: OAuthDeps, exchange: TokenExchangeDeps) {
  try {
    const keys = await exchange.providerKeys.keysOf({
      issuer: provider.issuer,
      ...(provider.jwks_uri ? { jwksUri: provider.jwks_uri } : {}),
      ...(provider.discovery_url ? { discoveryUrl: provider.discovery_url } : {}),
    });
    return await verifyProviderIdToken(token, keys, { audience: provider.audience ?? provider.client_id, now: deps.now() });
  } catch (error) {
    // Messages name the claim or the failure, never the token or a key (federation-errors.ts).
    if (error instanceof ProviderTokenError) throw invalid('subject_token', error.message);
    if (error instanceof ProviderError) {
      throw invalid('subject_token', `the identity provider could not be read (${error.reason}); try again later.`);
    }
    throw error;
  }
}

/**
 * The audience, checked before any user is created or linked: an exchange refused for its target
 * (no such Resource: `invalid_target`; the management API through a client not linked to it,
 * docs/security.md "The management API") provisions nobody. The lookups go through the token
 * path's caches, which the token's issuance then reads again.
 */
async function checkTarget(client: OAuthClient, tenantId: string, request: ExchangeRequest, deps: OAuthDeps): Promise<void> {
  const audience = requestedAudience(request);
  if (audience) assertMayCarryUserTokens(client, await audienceResource(tenantId, audience, deps));
}
