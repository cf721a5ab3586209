import type { UserRecord } from '../records/user-record.ts';
import type { AccessTokenClaims } from '../tokens/verify-access-token.ts';
import type { Lookahead } from '../ttl-cache.ts';

type Item = Record<string, unknown>;

/** Ids we could have stored: bounded and printable, like client ids (authenticate-client.ts). */
const STORABLE_ID = /^[A-Za-z0-9._~-]{1,128}$/;
type ItemKey = { PK: string; SK: string };

/** What decides whether a user's token still counts, as read (store/user-token-records.ts). */
export interface UserTokenRecords {
  user: UserRecord | undefined;
  /** The token's login family (`sid`) was revoked: a rotated refresh token of it came back (docs/contract.md §7.1). */
  familyRevoked: boolean;
}

/** The items a check still lacks here, and how to take them once read (so a preload can fold them into its own read). */
export interface UserTokenWant {
  keys: ItemKey[];
  /** The caller reads `keys` now: the requests beside it keep the soon-stale copies (ttl-cache.ts `Lookahead`). */
  rereading(): void;
  take(found: (key: ItemKey) => Item | undefined): UserTokenRecords;
}

/** The reads behind a user-token check: through 1 s caches, both items in one call when cold. */
export interface UserTokenReads {
  read(userId: string, sid: string | undefined): Promise<UserTokenRecords>;
  /** `readAhead` where a request folds them into a read it makes anyway (ttl-cache.ts `readAheadMs`). */
  want(userId: string, sid: string | undefined, options?: Lookahead): UserTokenWant;
}

export { isUserToken } from '../ports/token-path.ts';

/**
 * The user and login (`sid`, its refresh family id) a user token names, or
 * undefined when they are not ids we could have stored (bounded like client ids, so junk from a
 * token forged under an HS256 Resource's secret never reaches the table). A token with no `sid`
 * is judged on its user alone.
 */
export function loginOf(claims: { sub?: unknown; sid?: unknown }): { userId: string; sid: string | undefined } | undefined {
  const { sub, sid } = claims;
  if (typeof sub !== 'string' || !STORABLE_ID.test(sub)) return undefined;
  if (sid === undefined) return { userId: sub, sid: undefined };
  return typeof sid === 'string' && STORABLE_ID.test(sid) ? { userId: sub, sid } : undefined;
}

/**
 * Whether a verified user token still counts, from what was read for it (docs/contract.md
 * §7.1): its user exists, in the token's tenant, and is not blocked; the token was issued AFTER the
 * whole second of the user's `tokens_revoked_at` (`revokedTokensSecond`); and its login family is
 * not revoked. Returns the user when it does.
 */
export function activeUser(claims: AccessTokenClaims, records: UserTokenRecords): UserRecord | undefined {
  const { user, familyRevoked } = records;
  if (!user || user.blocked || familyRevoked) return undefined;
  // A token names its tenant: a user of another tenant (an id forged under an HS256 Resource's
  // secret, which a tenant may choose) is not its user.
  if (claims.tenant_id !== undefined && claims.tenant_id !== user.tenant_id) return undefined;
  const revokedSecond = revokedTokensSecond(user);
  if (revokedSecond !== undefined && !(claims.iat > revokedSecond)) return undefined; // NaN (an unreadable time) fails closed
  return user;
}

/**
 * Whether a user still honours a refresh token it was issued (decision 4): the user exists, in the
 * token's tenant, is not blocked, and revoked no tokens after the token's creation. The grant and
 * the introspection of a refresh token judge it alike; the rotation's transaction checks the same
 * on the user item itself (refresh-tokens-repository.ts).
 */
export function userHonoursRefreshToken(
  user: UserRecord | undefined,
  token: { tenant_id: string; created_at: string },
): user is UserRecord {
  const revokedAt = user?.tokens_revoked_at;
  return !!user && !user.blocked && user.tenant_id === token.tenant_id && !(revokedAt && revokedAt > token.created_at);
}

/**
 * The NumericDate second of the user's `tokens_revoked_at` (a password change, a block): every
 * token with an `iat` in or before it is dead. `iat` has whole seconds only, so a token minted
 * earlier in that very second must die with it (a token minted 400 ms before a block used to
 * survive it for its whole lifetime); the minting side never issues a token in that second
 * (`mintableNow`), so a login right after the change is not caught by it.
 */
function revokedTokensSecond(user: Pick<UserRecord, 'tokens_revoked_at'>): number | undefined {
  return user.tokens_revoked_at === undefined ? undefined : Math.floor(Date.parse(user.tokens_revoked_at) / 1000);
}

/** The longest a mint waits for the revocation's second to pass: a second, plus room for clock skew between containers. */
const MAX_MINT_WAIT_MS = 1_100;

/**
 * The time to mint a user's tokens at: now, unless now is still in the second of the user's
 * `tokens_revoked_at`, in which case it waits (at most ~1 s, and only for a login in the very
 * second of a password change or block) and takes the time again. Never a future `iat`/`nbf`,
 * which strict resource servers refuse (jose's `nbf` check has no tolerance by default). A token
 * minted from a stale copy of the user that does not show the revocation yet keeps `iat` in that
 * second and dies: failing closed.
 */
export async function mintableNow(user: Pick<UserRecord, 'tokens_revoked_at'>, now: () => Date): Promise<Date> {
  const revokedSecond = revokedTokensSecond(user);
  let at = now();
  if (revokedSecond === undefined || Number.isNaN(revokedSecond)) return at;
  const deadline = at.getTime() + MAX_MINT_WAIT_MS;
  // A timer may fire early by the clock: Node counts it from the event loop's cached time, which
  // lags the clock by however long the loop's current turn has run (tens of ms on a busy
  // process). So the clock is read again after each wait, and the rest of the second waited for.
  while (Math.floor(at.getTime() / 1000) <= revokedSecond && at.getTime() < deadline) {
    const waitMs = Math.min((revokedSecond + 1) * 1000, deadline) - at.getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, waitMs)));
    at = now();
  }
  return at;
}

/**
 * The user of a verified token that acts for a user, when the token still counts; undefined when it
 * does not. Storage errors propagate (503), never an answer (docs/design.md §3.8).
 */
export async function activeTokenUser(claims: AccessTokenClaims, reads: UserTokenReads): Promise<UserRecord | undefined> {
  const login = loginOf(claims);
  return login ? activeUser(claims, await reads.read(login.userId, login.sid)) : undefined;
}
