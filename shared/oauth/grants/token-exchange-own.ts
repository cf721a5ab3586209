import { oauthError } from '../../errors.ts';
import type { EventOrigin } from '../../records/event-record.ts';
import { revocationRef } from '../../records/revocation-ref.ts';
import { InvalidAccessToken, verifyAccessToken } from '../../tokens/verify-access-token.ts';
import type { OAuthClient, OAuthDeps, VerifiedToken } from '../oauth-deps.ts';
import { parseScope } from '../parse-scope.ts';
import type { TokenResponse } from '../token-response.ts';
import { activeTokenUser, isUserToken } from '../user-token-state.ts';
import { issueExchangedToken } from './token-exchange-issue.ts';
import type { ExchangeRequest } from './token-exchange-types.ts';

/** One answer for every token that does not count here, so none tells which check failed. */
const inactive = () => oauthError(400, 'invalid_request', 'body.subject_token: is not an active access token of this tenant.');

/**
 * One of our own user access tokens exchanged for another audience (docs/federation.md "Token
 * exchange"): signed with the service's keys, never a Resource's HS256 secret (a resource server
 * holds that secret, so it could forge a user's token and turn it into one for another audience),
 * active as introspection would say (times, not revoked, its client and user still there, the user
 * not blocked and its tokens not revoked since: user-token-state.ts), of the exchange's tenant, a user's (a client's own token has no user
 * to act for), and issued to the client exchanging it. The new token's scopes are the requested ones (none: the subject's), each held by
 * the subject token (more is `invalid_scope`, as a refresh that widens, RFC 6749 §6), then what the
 * user holds on the new audience (the user-token core drops the rest).
 */
export async function exchangeOwnToken(
  client: OAuthClient,
  tenantId: string,
  request: ExchangeRequest,
  deps: OAuthDeps,
  origin: EventOrigin = {},
): Promise<TokenResponse> {
  const { claims, ref } = await verifiedSubject(request.subject_token, deps);
  if (!isUserToken(claims)) {
    throw oauthError(400, 'invalid_request', 'body.subject_token: was issued to a client, not to a user.');
  }
  if (claims.tenant_id !== tenantId) throw inactive();
  // Only the client the token was issued to may exchange it (Keycloak's rule for its own tokens):
  // a bearer token that reached another client (a leak, a resource server it was sent to) buys
  // that client no token of its own for other audiences.
  if (claims.client_id !== client.id) {
    throw oauthError(400, 'invalid_request', 'body.subject_token: was issued to another client; only that client may exchange it.');
  }
  if (await deps.revocations.isRevoked(ref)) throw inactive();
  if (!(await deps.findClient(claims.client_id))) throw inactive();
  const user = await activeTokenUser(claims, deps.userTokens);
  if (!user) throw inactive();
  const held = parseScope(typeof claims.scope === 'string' ? claims.scope : undefined);
  const requested = parseScope(request.scope);
  // docs/contract.md §8: the field is named, the scopes are not echoed.
  if (requested.some((s) => !held.includes(s))) {
    throw oauthError(400, 'invalid_scope', 'body.scope: asks for more than the subject token was granted.');
  }
  const scope = (requested.length ? requested : held).join(' ');
  return issueExchangedToken(client, user, { ...request, scope }, new Date(claims.iat * 1000).toISOString(), deps, { kind: 'own', origin });
}

async function verifiedSubject(token: string, deps: OAuthDeps): Promise<VerifiedToken> {
  let verified: Awaited<ReturnType<typeof verifyAccessToken>>;
  try {
    verified = await verifyAccessToken(token, deps);
  } catch (error) {
    if (error instanceof InvalidAccessToken) throw inactive();
    throw error;
  }
  const ref = revocationRef(verified.header, verified.claims);
  if (!ref) throw inactive();
  return { claims: verified.claims, ref };
}
