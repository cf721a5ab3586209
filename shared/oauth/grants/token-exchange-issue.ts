import { type EventOrigin, newEvent } from '../../records/event-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { issueUserTokens } from '../user-tokens/issue-user-tokens.ts';
import { ACCESS_TOKEN_TYPE } from './token-exchange-types.ts';

/** What `token.exchanged` says of the subject token: ours (`own`) or a provider's ID token (`external`). */
export interface ExchangedSubject {
  kind: 'own' | 'external';
  /** The identity provider's `provider_name` (external only). */
  provider?: string;
  origin: EventOrigin;
}

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
  subject: ExchangedSubject,
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
  // The exchange writes nothing the event could ride on (the token is a JWT; a first exchange's
  // user creation is another step): one separate write, after the token was issued. It names
  // the kind of subject token and the audience asked for, never a token.
  const audience = request.audience ?? request.resource;
  await deps.events.record(
    newEvent('token.exchanged', deps.now(), subject.origin, {
      tenant_id: user.tenant_id,
      client_id: client.id,
      user_id: user.id,
      details: {
        subject_token_kind: subject.kind,
        ...(subject.provider !== undefined ? { provider: subject.provider } : {}),
        ...(audience !== undefined ? { audience } : {}),
      },
    }),
  );
  return { ...tokens, issued_token_type: ACCESS_TOKEN_TYPE };
}
