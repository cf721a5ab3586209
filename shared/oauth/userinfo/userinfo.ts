import { decodeProtectedHeader } from 'jose';
import { insufficientScope, invalidToken, missingBearer } from '../../errors.ts';
import { DEFAULT_TENANT_ID } from '../../records/tenant-record.ts';
import { InvalidAccessToken } from '../../tokens/verify-access-token.ts';
import { boundKey } from '../dpop/bound-token.ts';
import { checkResourceDpop, type TokenScheme } from '../dpop/resource-dpop.ts';
import { tokenState } from '../introspection/introspect-token.ts';
import type { OAuthDeps, VerifiedToken } from '../oauth-deps.ts';
import { userClaims } from '../user-tokens/user-claims.ts';
import { verifyIssuedToken } from '../verify-resource-token.ts';

/** The access token as presented: its scheme, the request's `DPoP` proof and method (RFC 9449 §7). */
export interface PresentedToken {
  token: string;
  scheme: TokenScheme;
  proof: string | undefined;
  method: string;
}

/** RFC 6750 §3.1: one answer for every token that does not count here, whatever the reason. */
const notValid = () => invalidToken('The access token is missing, invalid, expired or revoked.');

/**
 * OIDC Core §5.3 UserInfo (spec 4.2 "Get user info", docs/contract.md §5 and §7.1): the claims of the user a
 * bearer token acts for, by the token's granted scopes (user-claims.ts), `sub` always.
 *
 * The token must be one of our access tokens signed with the service keys (ES256/RS256: an HS256
 * token's secret may have been chosen by a tenant, who could then name any user; Auth0 likewise
 * keeps HS256 APIs' tokens off /userinfo), for `{issuer}/userinfo` or a Resource that still exists
 * (the management API included), not revoked, of a client that still exists, and acting for a user
 * whose tokens still count (user-token-state.ts). Any of that failing, or no token: 401
 * invalid_token (RFC 6750 §3.1). A client's own token (client_credentials, no user) is 401 too: it
 * is not a credential for an end-user's claims at all, which a scope could not fix (Auth0 answers
 * the same). A user's token without `openid`: 403 insufficient_scope (OIDC Core §5.3.1).
 * Storage errors propagate as 503 (docs/design.md §3.8).
 */
export async function userInfo(presented: PresentedToken | undefined, deps: OAuthDeps): Promise<Record<string, unknown>> {
  if (presented === undefined) throw missingBearer();
  const { token } = presented;
  const verified = await verifiedForUserinfo(token, deps);
  // RFC 9449 §7: a bound token only with a proof of its key; an unbound one only as Bearer.
  await checkResourceDpop({ ...presented, url: `${deps.issuer}/userinfo`, jkt: boundKey(verified.claims) }, deps);
  const state = await tokenState(verified, deps);
  if (!state.active || !state.user || !(await forUserinfo(verified, deps))) throw notValid();
  const scopes = (state.claims.scope ?? '').split(' ').filter(Boolean);
  if (!scopes.includes('openid')) throw insufficientScope('openid');
  return { sub: state.claims.sub, ...userClaims(state.user, scopes) };
}

async function verifiedForUserinfo(token: string, deps: OAuthDeps): Promise<VerifiedToken> {
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw notValid(); // not a JWS at all
  }
  if (alg === 'HS256') throw notValid();
  try {
    return await verifyIssuedToken(token, deps);
  } catch (err) {
    if (err instanceof InvalidAccessToken) throw notValid();
    throw err;
  }
}

/** RFC 9068 §4 / RFC 8707: the token's audience is `{issuer}/userinfo` or a Resource of its tenant that still exists. */
async function forUserinfo({ claims }: VerifiedToken, deps: OAuthDeps): Promise<boolean> {
  const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  for (const aud of auds) {
    if (typeof aud !== 'string') continue;
    if (aud === `${deps.issuer}/userinfo` || aud === deps.managementAudience) return true;
    if (await deps.findResource(claims.tenant_id ?? DEFAULT_TENANT_ID, aud)) return true;
  }
  return false;
}
