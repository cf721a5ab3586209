import { insufficientScope, unauthorized } from '../errors.ts';
import { HEALTH_KEY_WAIT_MS } from '../health/check-health.ts';
import { lastKnownKeys } from '../health/last-known-keys.ts';
import { refuseBoundBearer } from '../oauth/dpop/bound-token.ts';
import { activeTokenUser, isUserToken, type UserTokenReads } from '../oauth/user-token-state.ts';
import { revocationRef } from '../records/revocation-ref.ts';
import type { Route } from '../routes/route.ts';
import type { Runtime } from '../runtime.ts';
import { type AccessTokenClaims, InvalidAccessToken, verifyAccessToken } from '../tokens/verify-access-token.ts';

/** docs/contract.md §2: management and health answer 401 `unauthorized`, with RFC 6750 §3's challenge. */
const invalidToken = (message = 'The access token is missing, invalid, expired or revoked.') =>
  unauthorized(message, { headers: { 'WWW-Authenticate': 'Bearer realm="identity", error="invalid_token"' } });

/** Who is calling a bearer-protected route. */
export interface Caller {
  claims: AccessTokenClaims;
  scopes: ReadonlySet<string>;
  /**
   * A user token (`sub` ≠ `client_id`) whose user is the one the route's `self` path parameter
   * names: on a route whose rule allows it, this stands in for the route's scope (docs/contract.md §7.6).
   */
  self?: boolean;
}

/** Does the token's user name itself in the route's `self` path parameter? Ids compare without case (UUIDs). */
function isSelf(rule: Route['auth'], claims: AccessTokenClaims, pathParameters: Record<string, string | undefined>): boolean {
  if (rule.type !== 'bearer' || rule.self === undefined || !isUserToken(claims)) return false;
  const named = pathParameters[rule.self];
  return named !== undefined && named.toLowerCase() === claims.sub.toLowerCase();
}

/** RFC 6750 §2.1: `Authorization: Bearer <token>`; the scheme is case-insensitive. */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(headers.authorization ?? '');
  return m?.[1];
}

/**
 * Enforces the route's auth rule from the route table. Management routes need a token for the
 * management API (docs/contract.md §4) carrying the route's scope, or, where the route's rule names a `self`
 * path parameter, a user's own token for that user (docs/contract.md §7.6; the management pipeline then
 * checks the user's tenant); health needs any valid token of ours.
 * On management routes a revoked token (by jti) is refused like an expired one.
 */
export async function authenticate(
  route: Route,
  headers: Record<string, string | undefined>,
  runtime: Runtime,
  pathParameters: Record<string, string | undefined>,
  userTokens: (runtime: Runtime) => UserTokenReads,
): Promise<Caller | undefined> {
  if (route.auth.type !== 'bearer') return undefined;
  const token = bearerToken(headers);
  // RFC 6750 §3.1: a request with no credential gets the bare challenge, no error code.
  if (!token) throw unauthorized('Missing bearer token.');
  const audience = route.auth.scope ? runtime.config.managementAudience : undefined;
  // Health (no scope) checks against the last keys read when reading them stalls (spec 4.4).
  const keys = route.auth.scope ? runtime.keys : lastKnownKeys(runtime.keys, HEALTH_KEY_WAIT_MS);
  let claims: AccessTokenClaims;
  let header;
  try {
    ({ claims, header } = await verifyAccessToken(token, { keys, issuer: runtime.config.issuer, now: runtime.now }, audience));
  } catch (err) {
    if (err instanceof InvalidAccessToken) throw invalidToken();
    throw err;
  }
  // RFC 9449 §7.2: a DPoP-bound token is never honoured as Bearer (docs/client-authentication.md).
  refuseBoundBearer(claims, route.auth.scope ? 'the management API' : 'this endpoint');
  // Management routes also refuse revoked tokens (one read; the revocation is bound to the token's
  // key and client). Health checks the signature only, so that it can still answer `degraded` when
  // the table is unreachable (spec 4.4).
  if (route.auth.scope) {
    const ref = revocationRef(header, claims);
    if (!ref || (await runtime.revocations.isRevoked(ref))) throw invalidToken();
    // A user's token dies with the user's right to tokens (blocked, deleted, "revoke all", family revoked).
    if (isUserToken(claims) && !(await activeTokenUser(claims, userTokens(runtime)))) throw invalidToken();
  }
  const scopes = new Set((claims.scope ?? '').split(' ').filter(Boolean));
  const self = isSelf(route.auth, claims, pathParameters);
  if (route.auth.scope && !scopes.has(route.auth.scope) && !self) throw insufficientScope(route.auth.scope);
  return self ? { claims, scopes, self } : { claims, scopes };
}
