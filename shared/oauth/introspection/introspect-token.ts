import { invalidClient, oauthError } from '../../errors.ts';
import { bearerToken } from '../../http/authenticate.ts';
import { revocationRef } from '../../records/revocation-ref.ts';
import type { UserRecord } from '../../records/user-record.ts';
import { InvalidAccessToken, verifyAccessToken } from '../../tokens/verify-access-token.ts';
import { authenticateClient } from '../authenticate-client.ts';
import { refuseBoundBearer } from '../dpop/bound-token.ts';
import { maySee } from '../may-see-token.ts';
import type { OAuthClient, OAuthDeps, VerifiedToken } from '../oauth-deps.ts';
import { activeTokenUser, isUserToken, userHonoursRefreshToken } from '../user-token-state.ts';
import { verifyIssuedToken } from '../verify-resource-token.ts';

/** RFC 6750 §3.1: a bad bearer credential is 401 invalid_token with a Bearer challenge. */
const invalidBearer = () =>
  oauthError(401, 'invalid_token', 'The bearer token is not valid.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="identity", error="invalid_token"' },
  });

/** What an active answer reports: a JWT's claims, or the same members of a refresh token (no `jti`, `exp` only when it expires). */
export interface IntrospectedClaims {
  iss?: string;
  sub: string;
  client_id: string;
  scope?: string;
  aud?: string | string[];
  iat: number;
  exp?: number;
  nbf?: number;
  jti?: string;
  tenant_id?: string;
  /** What the earliest client tokens carried (introspection-views.ts `username`). */
  username?: unknown;
  /** RFC 9449 §6: the DPoP key a token (or a public client's refresh token) is bound to. */
  cnf?: unknown;
}

/**
 * An active answer names the user of a user token (spec 2.11 `username`, RFC 7662 §2.2);
 * `tokenType` is `refresh_token` for a refresh token (else the access token's `Bearer`).
 */
export type Introspection =
  | { active: false }
  | { active: true; claims: IntrospectedClaims; user?: UserRecord; tokenType?: 'refresh_token' };

const INACTIVE = { active: false } as const;

/** Who asks about a token, and about which tokens it may ask. */
export interface IntrospectionCaller {
  client: OAuthClient;
  /** Set when the caller may ask about this token only: the bearer token it authenticated with. */
  onlyItself?: string;
}

/**
 * Who is asking (spec 4.2 Token info: Bearer or Basic; RFC 7662 §2.1: the caller must be
 * authorized). A bearer caller is the client its own token was issued to: the token must be
 * signed by the service keys (never an HS256 token, whose secret a tenant may choose), unrevoked,
 * and its client must still exist. Public clients cannot introspect (they hold no credential).
 *
 * A bearer token that is no client credential (a user's token, which its user holds in a browser
 * or an app, or any token of a public client) may only ask about itself: otherwise anyone holding
 * a user token could learn the users behind the other tokens of its tenant (a review found it).
 * Only a confidential client's own token (client_credentials: `sub` = `client_id`) speaks for the
 * client as its credentials do.
 */
export async function authenticateIntrospectionCaller(
  headers: Record<string, string | undefined>,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
  deps: OAuthDeps,
  endpoint: '/introspect' | '/tokeninfo',
): Promise<IntrospectionCaller> {
  const bearer = bearerToken(headers);
  if (bearer) {
    let verified;
    try {
      verified = await verifyAccessToken(bearer, deps);
    } catch (err) {
      if (err instanceof InvalidAccessToken) throw invalidBearer();
      throw err;
    }
    // RFC 9449 §7.2: a DPoP-bound token is no Bearer credential here either.
    refuseBoundBearer(verified.claims, 'introspection');
    const ref = revocationRef(verified.header, verified.claims);
    const client = !ref || (await deps.revocations.isRevoked(ref)) ? undefined : await deps.findClient(ref.clientId);
    if (!client) throw invalidBearer();
    // A user's token counts only while the user's tokens still count (decision 3).
    const userToken = isUserToken(verified.claims);
    if (userToken && !(await activeTokenUser(verified.claims, deps.userTokens))) throw invalidBearer();
    return userToken || client.is_public ? { client, onlyItself: bearer } : { client };
  }
  const { client, method } = await authenticateClient(headers, body, deps, endpoint);
  if (method === 'none') throw invalidClient('Public clients cannot introspect tokens.');
  return { client };
}

/**
 * RFC 7662 §2.2: an invalid, expired, revoked or foreign token is `{active: false}` and nothing
 * else. Foreign = of another tenant than a non-global caller's (docs/contract.md §4), or any token but
 * itself for a caller that may only ask about itself. A token whose client
 * has been deleted is inactive too, and so is a user's token once the user is gone or blocked,
 * revoked all their tokens, or its login family was revoked (user-token-state.ts). Storage
 * failures are thrown (503), never reported as active (docs/design.md §3.8).
 */
export async function introspectFor(
  token: string,
  { client: caller, onlyItself }: IntrospectionCaller,
  deps: OAuthDeps,
): Promise<Introspection> {
  // RFC 7662 §4: a caller not allowed to know about a token gets `active: false`.
  if (onlyItself !== undefined && token !== onlyItself) return INACTIVE;
  if (REFRESH_TOKEN.test(token)) return refreshTokenState(token, caller, deps);
  let verified;
  try {
    verified = await verifyIssuedToken(token, deps);
  } catch (err) {
    if (err instanceof InvalidAccessToken) return INACTIVE;
    throw err;
  }
  if (!maySee(caller, verified.claims)) return INACTIVE;
  return tokenState(verified, deps);
}

/**
 * Whether a token whose signature and time claims verified still counts: not revoked, its client
 * still exists, and for a user's token, the user's tokens still count (user-token-state.ts).
 */
export async function tokenState({ claims, ref }: VerifiedToken, deps: OAuthDeps): Promise<Introspection> {
  if (await deps.revocations.isRevoked(ref)) return INACTIVE;
  if (!(await deps.findClient(claims.client_id))) return INACTIVE;
  if (!isUserToken(claims)) return { active: true, claims };
  const user = await activeTokenUser(claims, deps.userTokens);
  return user ? { active: true, claims, user } : INACTIVE;
}

/** A refresh token's shape (refresh-tokens-repository.ts `newRefreshTokenValue`): a JWT always has dots. */
const REFRESH_TOKEN = /^[A-Za-z0-9_-]{64}$/;

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * A refresh token (spec 4.2 `token_type_hint=refresh_token`), found by its stored hash. Only the
 * client it was issued to may ask about it (a resource server never holds one; RFC 7662 §4): any
 * other caller gets `active: false`. Active while it could still be used at /token: not rotated,
 * not expired (the read ignores an expired one), its login family not revoked, its user still
 * active (in its tenant, not blocked, no `tokens_revoked_at` after its creation). The answer is the
 * access token's members: `scope`, `client_id`, `sub` and `username`, `aud` (its Resource, or
 * `{issuer}/userinfo`), `iat` (its creation), `exp` when it expires, `token_type: refresh_token`.
 */
async function refreshTokenState(token: string, caller: OAuthClient, deps: OAuthDeps): Promise<Introspection> {
  const stored = await deps.findRefreshToken(token);
  if (!stored || stored.client_id !== caller.id || stored.rotated_at) return INACTIVE;
  const { user, familyRevoked } = await deps.userTokens.read(stored.user_id, stored.family_id);
  if (familyRevoked || !userHonoursRefreshToken(user, stored)) return INACTIVE;
  const claims: IntrospectedClaims = {
    iss: deps.issuer,
    sub: stored.user_id,
    client_id: stored.client_id,
    scope: stored.scope.join(' '),
    aud: stored.audience ?? `${deps.issuer}/userinfo`,
    iat: seconds(stored.created_at),
    ...(stored.expires_at ? { exp: seconds(stored.expires_at) } : {}),
    tenant_id: stored.tenant_id,
    ...(stored.dpop_jkt ? { cnf: { jkt: stored.dpop_jkt } } : {}),
  };
  return { active: true, claims, user, tokenType: 'refresh_token' };
}
