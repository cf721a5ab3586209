import type { UserTokenReads, UserTokenWant } from '../../oauth/user-token-state.ts';
import { cacheCounter } from '../../observability/service-metrics.ts';
import type { UserRecord } from '../../records/user-record.ts';
import type { Runtime } from '../../runtime.ts';
import { toRecord } from '../../store/core/entity.ts';
import { getItems } from '../../store/core/reads/read-items.ts';
import { keys } from '../../store/core/table-keys.ts';
import { keyString } from '../../store/core/writes.ts';
import type { Lookahead } from '../../ttl-cache.ts';
import { TtlCache } from '../../ttl-cache.ts';

type Item = Record<string, unknown>;

interface Caches {
  users: TtlCache<UserRecord | null>;
  /** Family id → `revoked` (a missing family is a login that never had a refresh token: not revoked). */
  families: TtlCache<boolean>;
  reads: UserTokenReads;
}

/** One set of caches per runtime (per container in Lambda), as the token path's client records. */
const perRuntime = new WeakMap<Runtime, Caches>();

/**
 * What decides whether a user's token still counts (docs/tokens.md "When a user
 * token stops working"): the User record and the token's login family (`keys.refreshFamily(sid)`),
 * read through per-container caches of `RECORD_CACHE_TTL_SECONDS` (1 s by default), like client
 * records. A cold check reads both in ONE consistent BatchGetItem; `want` lets the introspection
 * and userinfo preloads fold them into their own single read (batch-read-planner.ts).
 */
export function userTokenReads(runtime: Runtime): UserTokenReads {
  return caches(runtime).reads;
}

/** A change made in this container (block, delete, password) is seen by it at once. */
export function forgetUser(runtime: Runtime, userId: string): void {
  caches(runtime).users.delete(userId);
}

/** A family this container revoked is revoked here at once (other containers: within the TTL). */
export function rememberFamilyRevoked(runtime: Runtime, familyId: string): void {
  caches(runtime).families.set(familyId, true);
}

const userOfItem = (item: Item | undefined): UserRecord | null => (item ? toRecord<UserRecord>(item) : null);
const familyRevoked = (item: Item | undefined): boolean => item?.revoked === true;

function caches(runtime: Runtime): Caches {
  let c = perRuntime.get(runtime);
  if (c) return c;
  const { config, db, now } = runtime;
  const clock = () => now().getTime();
  const users = new TtlCache<UserRecord | null>(config.recordCacheTtlMs, 10_000, clock);
  const families = new TtlCache<boolean>(config.recordCacheTtlMs, 10_000, clock);
  const countLookup = cacheCounter(runtime.metrics, 'user');

  /**
   * What this container lacks to judge a token of `userId` from login `sid`, and how to take the
   * answer: what was cached is captured now, so an entry expiring during the read is never taken
   * for a missing item.
   */
  const want = (userId: string, sid: string | undefined, options?: Lookahead): UserTokenWant => {
    const cachedUser = users.get(userId, options);
    const cachedRevoked = sid === undefined ? false : families.get(sid, options);
    const userKey = keys.user(userId);
    const familyKey = sid === undefined ? undefined : keys.refreshFamily(sid);
    return {
      keys: [...(cachedUser === undefined ? [userKey] : []), ...(cachedRevoked === undefined && familyKey ? [familyKey] : [])],
      rereading() {
        if (cachedUser === undefined) users.rereading(userId);
        if (cachedRevoked === undefined && sid !== undefined) families.rereading(sid);
      },
      take(found) {
        // One lookup per taken answer: a miss when it had to come from the read.
        countLookup(cachedUser !== undefined);
        let user = cachedUser;
        if (user === undefined) users.set(userId, (user = userOfItem(found(userKey))));
        let revoked = cachedRevoked;
        if (revoked === undefined && sid !== undefined && familyKey) families.set(sid, (revoked = familyRevoked(found(familyKey))));
        return { user: user ?? undefined, familyRevoked: revoked === true };
      },
    };
  };

  const reads: UserTokenReads = {
    want,
    async read(userId, sid) {
      const w = want(userId, sid);
      // Both items in one consistent call (a block is seen by the next read); a storage error is
      // thrown (503), never taken for "active" (docs/design.md §3.8).
      const found = w.keys.length ? await getItems(db, config.tableName, w.keys, now()) : new Map<string, Item>();
      return w.take((key) => found.get(keyString(key)));
    },
  };
  c = { users, families, reads };
  perRuntime.set(runtime, c);
  return c;
}
