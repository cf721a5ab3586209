import { randomUUID } from 'node:crypto';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';
import type { OAuthClient } from '../oauth-deps.ts';
import { acrOf } from '../user-tokens/acr.ts';
import { issueImplicitTokens } from '../user-tokens/issue-user-tokens.ts';
import { authorizationResponse } from './authorization-response.ts';
import type { AuthorizeDeps } from './authorize-deps.ts';
import { AuthorizeError, type AuthorizeRequest } from './authorize-request.ts';

/** Tokens from `/authorize` itself (RFC 6749 §4.2) count under this grant type. */
const IMPLICIT = ['grant_type', 'implicit'] as const;

export interface Authorization {
  client: OAuthClient;
  request: AuthorizeRequest;
  userId: string;
  /** The browser session, and the login's time (OIDC Core `auth_time`). */
  sessionId: string;
  authTime: number;
  /** How the person signed in (RFC 8176 `amr`); absent on an interaction recorded before it was kept. */
  amr?: AuthMethod[] | undefined;
  /** What the user granted (the consent's answer, or the stored grant for `prompt=none`). */
  scopes: string[];
}

/**
 * The successful answer of an authorization request, once the user logged in and consented:
 * - `code` (RFC 6749 §4.1.2): a code bound to the client, redirect URI, PKCE challenge, scopes,
 *   nonce and login, with a fresh `sid` (the login family of every token issued from it);
 * - `token`, `id_token`, `id_token token` (RFC 6749 §4.2.2, OIDC Core §3.2.2.5): the tokens
 *   themselves, no refresh token; the ID token carries `nonce`, `auth_time` and, with an access
 *   token, `at_hash`. (`c_hash` belongs to the hybrid response types, which are not offered.)
 * Both carry the login's `amr` and the `acr` it meets of those the request asked for (acr.ts), the
 * code to every ID token issued from it. The user is read again: one blocked or deleted since the
 * login gets `access_denied`.
 */
export async function issueAuthorization(a: Authorization, deps: AuthorizeDeps) {
  const { client, request } = a;
  const target = { redirectUri: request.redirectUri, responseMode: request.responseMode, state: request.state };
  const user = await deps.oauth.findUser(a.userId);
  if (!user || user.blocked || user.tenant_id !== client.tenant_id)
    throw new AuthorizeError('access_denied', 'The user cannot sign in to this client.');
  const audience = request.audience !== undefined ? { audience: request.audience } : {};
  const acr = acrOf(request.acrValues, a.amr);
  const login = { ...(a.amr ? { amr: a.amr } : {}), ...(acr ? { acr } : {}) };
  if (request.responseType === 'code') {
    const code = await deps.codes.issue({
      client_id: client.id,
      tenant_id: user.tenant_id,
      user_id: user.id,
      redirect_uri: request.redirectUri,
      scope: a.scopes,
      ...audience,
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      ...(request.codeChallenge !== undefined ? { code_challenge: request.codeChallenge } : {}),
      auth_time: a.authTime,
      ...login,
      sid: randomUUID(),
      session_id: a.sessionId,
    });
    return authorizationResponse(target, deps.oauth.issuer, { code });
  }
  const tokens = await issueImplicitTokens(
    {
      client,
      user,
      request: { scope: a.scopes.join(' '), ...audience },
      authTime: a.authTime,
      ...login,
      // The session was just read consistently (and dies with a later tokens_revoked_at).
      authorizedAt: deps.oauth.now().toISOString(),
      ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
      sid: randomUUID(),
    },
    request.responseType !== 'id_token',
    deps.oauth,
  );
  deps.oauth.metrics.count('TokensIssued', IMPLICIT);
  return authorizationResponse(target, deps.oauth.issuer, {
    access_token: tokens.access_token,
    token_type: tokens.token_type,
    expires_in: tokens.expires_in === undefined ? undefined : String(tokens.expires_in),
    id_token: tokens.id_token,
    scope: tokens.scope,
  });
}
