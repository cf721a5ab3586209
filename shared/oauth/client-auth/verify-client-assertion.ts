import { createLocalJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { OAuthClient } from '../../ports/token-path.ts';
import type { OneTimeIds } from '../../store/sessions/one-time-ids-repository.ts';
import {
  ASSERTION_CLOCK_SKEW_SECONDS,
  CLIENT_ASSERTION_ALGS,
  type ClientAssertionVerifier,
  type ClientAuthEndpoint,
  MAX_ASSERTION_LIFETIME_SECONDS,
} from './client-assertion.ts';

/** What checking an assertion reads: the clock, our issuer, the `jti` store and a client's remote keys. */
export interface ClientAssertionDeps {
  issuer: string;
  now: () => Date;
  oneTimeIds: OneTimeIds;
  /**
   * The keys served at a client's `jwks_uri`, through the container's cache (shared/wiring/client-keys.ts):
   * bounded fetch, re-read on an unknown `kid` at most once per cooldown.
   */
  remoteKeys(jwksUri: string): Promise<JWTVerifyGetKey>;
}

/** Where each endpoint is served, under the issuer: the URL an assertion may name as its `aud`. */
const ENDPOINT_PATHS: Record<ClientAuthEndpoint, string> = {
  '/token': '/token',
  '/introspect': '/introspect',
  '/tokeninfo': '/tokeninfo',
  '/revoke': '/revoke',
  '/device_code': '/device_code',
  '/par': '/par',
  '/users/register': '/identity/v1/users/register',
};

/** The longest `jti` we store a mark of (it is hashed; this only bounds the work). */
const MAX_JTI_CHARS = 256;

/** Inline key sets, one resolver per client view (a changed client is a new object, so a new set). */
const localSets = new WeakMap<object, JWTVerifyGetKey>();

/**
 * RFC 7523 §3 and OIDC Core §9 `private_key_jwt` (docs/client-authentication.md "private_key_jwt"):
 * - signed with an allow-listed asymmetric algorithm by a key of the client (`jwks`, or `jwks_uri`);
 * - `iss` = `sub` = the client id (§3 items 1, 2);
 * - `aud` our issuer or the URL of the endpoint called, alone or in an array (§3 item 3);
 * - `exp` present and ahead, at most MAX_ASSERTION_LIFETIME_SECONDS from now; `nbf` and `iat` not
 *   in the future (§3 items 4-6), each within the clock skew;
 * - `jti` present and used once, remembered until the assertion expires (§3 item 7): the only
 *   DynamoDB call, one conditional PutItem, last, so concurrent uses of one assertion let one through.
 */
export function clientAssertionVerifier(deps: ClientAssertionDeps): ClientAssertionVerifier {
  return async (assertion, client, endpoint) => {
    const now = deps.now();
    let payload;
    try {
      const getKey = await keysOf(client, deps);
      if (!getKey) return false;
      ({ payload } = await jwtVerify(assertion, getKey, {
        algorithms: [...CLIENT_ASSERTION_ALGS],
        issuer: client.id,
        subject: client.id,
        audience: [deps.issuer, `${deps.issuer}${ENDPOINT_PATHS[endpoint]}`],
        requiredClaims: ['exp', 'jti'],
        currentDate: now,
        clockTolerance: ASSERTION_CLOCK_SKEW_SECONDS,
      }));
    } catch {
      // Nothing in here reads our storage: whatever fails (a bad signature, a claim, a key the
      // client registered that cannot be imported, its key server) is the assertion's failure.
      return false;
    }
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const { exp, jti, iat } = payload as { exp: number; jti: unknown; iat?: number };
    if (exp > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS) return false;
    // jose accepts an `iat` in the future; an assertion made "later" than now is a clock far off or a forgery.
    if (iat !== undefined && iat > nowSeconds + ASSERTION_CLOCK_SKEW_SECONDS) return false;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_CHARS) return false;
    return deps.oneTimeIds.useOnce('client_assertion', client.id, jti, new Date((exp + ASSERTION_CLOCK_SKEW_SECONDS) * 1000));
  };
}

/** The client's keys: inline `jwks` first, else its `jwks_uri`; a client with neither cannot use an assertion. */
async function keysOf(client: OAuthClient, deps: ClientAssertionDeps): Promise<JWTVerifyGetKey | undefined> {
  if (client.jwks) {
    let set = localSets.get(client.jwks);
    if (!set) {
      set = createLocalJWKSet(client.jwks as Parameters<typeof createLocalJWKSet>[0]);
      localSets.set(client.jwks, set);
    }
    return set;
  }
  // A key server that is down, slow or serves no key set throws: the assertion cannot be checked.
  return client.jwks_uri ? deps.remoteKeys(client.jwks_uri) : undefined;
}
