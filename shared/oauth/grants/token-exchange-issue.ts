import type { UserRecord } from '../../records/user-record.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { ACCESS_TOKEN_TYPE } from './token-exchange-types.ts';

/**
 * The exchange's answer (RFC 8693 §2.2.1): the user's access token through the user-token core,
 * so its scopes are decided as every user grant's are (docs/contract.md §7.1: the user's
 * permissions, never the client's), alone (no ID token, no refresh token), with `issued_token_type`.
 */
export async function issueExchangedToken(
  client: OAuthClient,
  user: UserRecord,
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined },
  authorizedAt: string,
  deps: OAuthDeps,
): Promise<TokenResponse> {
  const tokens = await issueUserTokens(
    {
      client,
      user,
      request: { scope: request.scope, audience: request.audience, resource: request.resource },
      authTime: Math.floor(deps.now().getTime() / 1000),
      authorizedAt,
      accessOnly: true,
    },
    deps,
  );
  return { ...tokens, issued_token_type: ACCESS_TOKEN_TYPE };
}
