import { randomUUID } from 'node:crypto';
import { oauthError } from '../../errors.ts';
import type { EventOrigin } from '../../records/event-record.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { StoredRefreshToken } from '../../store/sessions/refresh-tokens-repository.ts';
import type { AuthMethod } from '../../store/sessions/sessions-repository.ts';
import type { DpopBinding } from '../dpop/token-dpop.ts';
import { mintAccessToken } from '../mint-access-token.ts';
import type { OAuthClient, OAuthDeps } from '../oauth-deps.ts';
import type { TokenResponse } from '../token-response.ts';
import { mintableNow } from '../user-token-state.ts';
import { idTokenAlgFor } from './id-token-algs.ts';
import { mintIdToken } from './mint-id-token.ts';
import { refuseRefresh } from './refuse-refresh.ts';
import { idTokenClaims } from './user-claims.ts';
import { resolveUserScopes } from './user-token-scopes.ts';

/** A grant from before the user's `tokens_revoked_at` (a password change, a block). */
const revokedGrant = () => oauthError(400, 'invalid_grant', "The grant was issued before the user's tokens were revoked.");

export interface UserTokenInput {
  client: OAuthClient;
  user: UserRecord;
  /** The token request's `scope`, `audience` / `resource` (a refresh passes the narrowed scope). */
  request: { scope?: string | undefined; audience?: string | undefined; resource?: string | undefined };
  /** NumericDate of the login (OIDC Core §2 `auth_time`). */
  authTime: number;
  /**
   * The login's RFC 8176 `amr` and the `acr` it met (acr.ts), for the ID token, and kept on a new
   * refresh token (a rotation keeps its token's).
   */
  amr?: AuthMethod[] | undefined;
  acr?: string | undefined;
  /**
   * When what authorizes these tokens was established (ISO): the login's secret check, the
   * code's creation, the device's approval, the presented refresh token's creation. A user whose
   * `tokens_revoked_at` (a password change, a block) is later gets nothing (docs/contract.md §7.1: every
   * token issued before it dies, and so does every grant given before it).
   */
  authorizedAt: string;
  /** OIDC Core §3.1.2.1 `nonce` of the authentication request, echoed in the ID token. */
  nonce?: string;
  /** The login this comes from (`sid`); a new one when absent. */
  sid?: string;
  /**
   * The refresh token this request presents (the `refresh_token` grant): it is rotated, and its
   * successor keeps its scope, audience, family and expiry (RFC 6749 §6).
   */
  refresh?: StoredRefreshToken;
  /**
   * The access token alone: no ID token and no refresh token whatever the scopes (token exchange,
   * RFC 8693: it is not a login; docs/federation.md "Token exchange").
   */
  accessOnly?: boolean;
  /**
   * The key of the request's DPoP proof (RFC 9449 §5): the access token carries `cnf.jkt`, and a
   * public client's new refresh token is bound to the key too (a refresh keeps its token's binding).
   */
  dpop?: DpopBinding | undefined;
  /** Where the request came from: a refresh that loses to a concurrent rotation records reuse with it. */
  origin?: EventOrigin | undefined;
}

/**
 * The user-token core every grant that acts for a user calls: the RFC 9068
 * access token (`sub` = user, `sid` = the login), the ID token when `openid` is granted, and a
 * refresh token when the client may use the `refresh_token` grant and `offline_access` is granted
 * (docs/contract.md §7.1). The refresh token is stored last, after every token is minted, so a failure
 * before it leaves nothing half done; a refresh's rotation is that same last write.
 */
export async function issueUserTokens(input: UserTokenInput, deps: OAuthDeps): Promise<TokenResponse> {
  const { client } = input;
  const { granted, sid, access, idToken } = await mintUserTokens(input, true, deps);
  const refreshToken = input.refresh
    ? await rotate(input.refresh, input.origin, deps)
    : !input.accessOnly && client.grant_types.includes('refresh_token') && granted.scopes.includes('offline_access')
      ? await issueRefresh(input, granted.scopes, granted.audience, sid, deps)
      : undefined;
  return {
    access_token: access!.token,
    token_type: input.dpop ? 'DPoP' : 'Bearer',
    expires_in: access!.expiresIn,
    ...(idToken ? { id_token: idToken } : {}),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    // RFC 6749 §5.1: OPTIONAL when identical to the request, else REQUIRED. User tokens drop what
    // the user may not have (docs/contract.md §7.6), so it is always sent.
    scope: granted.scopes.join(' '),
  };
}

/** What `/authorize` returns itself (RFC 6749 §4.2.2): never a refresh token. */
export interface ImplicitTokens {
  access_token?: string;
  token_type?: 'Bearer';
  expires_in?: number;
  id_token?: string;
  scope: string;
}

/**
 * The implicit responses (`token`, `id_token`, `id_token token`; RFC 6749 §4.2.2 and OIDC Core
 * §3.2.2.5): the same tokens as `issueUserTokens` without a refresh token (§4.2.2 "MUST NOT"), and
 * without an access token for `response_type=id_token`, whose ID token then has no `at_hash`.
 */
export async function issueImplicitTokens(input: UserTokenInput, withAccessToken: boolean, deps: OAuthDeps): Promise<ImplicitTokens> {
  const { granted, access, idToken } = await mintUserTokens(input, withAccessToken, deps);
  return {
    ...(access ? { access_token: access.token, token_type: 'Bearer' as const, expires_in: access.expiresIn } : {}),
    ...(idToken ? { id_token: idToken } : {}),
    scope: granted.scopes.join(' '),
  };
}

/** The access token (unless `withAccessToken` is false) and, when `openid` is granted, the ID token. */
async function mintUserTokens(input: UserTokenInput, withAccessToken: boolean, deps: OAuthDeps) {
  const { client, user } = input;
  // From the (1 s cached) user: the early answer. The refresh token's write checks it again on
  // the user item itself (refresh-tokens-repository.ts), so no cache lets one through.
  if (user.tokens_revoked_at !== undefined && user.tokens_revoked_at > input.authorizedAt) throw revokedGrant();
  const granted = await resolveUserScopes(user, client, input.request, deps);
  const sid = input.refresh?.family_id ?? input.sid ?? randomUUID();
  // Never in the second of the user's last revocation (user-token-state.ts `mintableNow`).
  const now = await mintableNow(user, deps.now);
  const access = withAccessToken
    ? await mintAccessToken(
        {
          issuer: deps.issuer,
          subject: user.id,
          clientId: client.id,
          tenantId: user.tenant_id,
          resource: granted.resource,
          scopes: granted.scopes,
          ...(granted.permissions ? { permissions: granted.permissions } : {}),
          sid,
          jkt: input.dpop?.jkt,
          now,
        },
        deps.keys,
      )
    : undefined;
  const idToken =
    granted.scopes.includes('openid') && !input.accessOnly
      ? await mintIdToken(
          {
            issuer: deps.issuer,
            userId: user.id,
            clientId: client.id,
            alg: idTokenAlgFor(client.id_token_signed_response_alg, deps.idTokenAlgs),
            lifetime: client.id_token_lifetime,
            authTime: input.authTime,
            amr: input.amr,
            acr: input.acr,
            nonce: input.nonce,
            sid,
            accessToken: access?.token,
            claims: idTokenClaims(user, granted.scopes),
            now,
          },
          deps.keys,
        )
      : undefined;
  return { granted, sid, access, idToken };
}

async function rotate(old: StoredRefreshToken, origin: EventOrigin | undefined, deps: OAuthDeps): Promise<string> {
  const outcome = await deps.refreshTokens.rotate(old);
  return typeof outcome === 'string' ? refuseRefresh(outcome, { token: old, origin: origin ?? {} }, deps) : outcome.token;
}

async function issueRefresh(
  { client, user, authTime, amr, acr, authorizedAt, dpop }: UserTokenInput,
  scopes: string[],
  audience: string | null,
  familyId: string,
  deps: OAuthDeps,
): Promise<string> {
  const { expiration_enabled, expiration_lifetime } = client.refresh_token;
  const issued = await deps.refreshTokens.issue(
    {
      user_id: user.id,
      client_id: client.id,
      tenant_id: user.tenant_id,
      family_id: familyId,
      scope: scopes,
      audience,
      auth_time: authTime,
      amr,
      acr,
      // docs/contract.md §7.1: the client's lifetime when enabled, else none. Counted from the login and kept
      // through rotations, so a chain cannot outlive it.
      lifetime: expiration_enabled ? expiration_lifetime : null,
      // RFC 9449 §5: only public clients' refresh tokens are bound; a confidential client's are
      // bound to its authentication already, and it may change keys at each refresh.
      ...(dpop && client.is_public ? { dpop_jkt: dpop.jkt } : {}),
    },
    authorizedAt,
  );
  // A login whose family was revoked (its sid reused after a reuse detection) gets no new token.
  if (issued === 'family-revoked') throw oauthError(400, 'invalid_grant', 'The login was revoked.');
  if (issued === 'user-refused') throw revokedGrant();
  return issued.token;
}
