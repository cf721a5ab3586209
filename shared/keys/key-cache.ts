import type { CacheCounter } from '../observability/service-metrics.ts';
import { type Lookahead, readAheadMs } from '../ttl-cache.ts';
import { buildSnapshot, isPublished, type KeySnapshot, type PublicKeyCache } from './key-snapshot.ts';
import type { PublicKeyEntry } from './key-store.ts';
import { MISS_REFRESH_MS } from './key-timing.ts';
import type { KeyPartition, SigningKeysRepository } from './signing-keys-repository.ts';

export interface KeyCacheOptions {
  repo: SigningKeysRepository;
  now: () => Date;
  /** How long a read of the keys is trusted (KEY_CACHE_TTL_SECONDS). */
  cacheTtlMs: number;
  missRefreshMs?: number;
  /** Called with every new snapshot (the signer drops private keys that no longer sign). */
  onRefresh?: (snapshot: KeySnapshot) => void;
  /**
   * Counts lookups (`current`): a hit when the snapshot is fresh, a miss when it is read first
   * (shared/observability/service-metrics.ts).
   */
  countLookup?: CacheCounter;
}

export interface KeyCache {
  /** The snapshot if it is younger than the cache TTL, else undefined (no I/O); `readAhead`: ttl-cache.ts `readAheadMs` sooner, unless `rereading`. */
  fresh(options?: Lookahead): KeySnapshot | undefined;
  /** A request starts a read of the soon-stale snapshot: `fresh({ readAhead: true })` gives it to the others meanwhile (ttl-cache.ts `Lookahead`). */
  rereading(): void;
  /** The fresh snapshot, or a new read. */
  current(): Promise<KeySnapshot>;
  /** A new read now (single flight: concurrent callers share one read). */
  refresh(): Promise<KeySnapshot>;
  /** Makes keys someone else read the snapshot, as a refresh would (same `onRefresh`, TTL clock restarted). */
  install(partition: KeyPartition, loadedAt?: number): KeySnapshot;
  publishedKeys(): Promise<PublicKeyEntry[]>;
  publicKey(kid: string): Promise<PublicKeyEntry | undefined>;
  /** The published key with this kid in the last snapshot read, however old (no I/O). */
  lastKnownPublicKey(kid: string): PublicKeyEntry | undefined;
}

/**
 * The published keys as one container sees them: the state items (`repo.load()`, or fed by the
 * token path's own read) read at most once per `cacheTtlMs`, so a rotation reaches every container
 * within that time, and verifying or serving the JWKS needs the table only (never KMS). A storage
 * error propagates (fail closed, docs/design.md §3.8).
 */
export function createKeyCache(opts: KeyCacheOptions): KeyCache {
  const { repo, now, cacheTtlMs } = opts;
  const missRefreshMs = opts.missRefreshMs ?? MISS_REFRESH_MS;
  const publicKeys: PublicKeyCache = new Map();
  let snapshot: KeySnapshot | undefined;
  let loading: Promise<KeySnapshot> | undefined;
  let lastMissRefresh = Number.NEGATIVE_INFINITY;
  const nowMs = () => now().getTime();

  let rereadingSnapshot: KeySnapshot | undefined;

  const fresh = (options?: Lookahead) => {
    if (!snapshot) return undefined;
    const age = nowMs() - snapshot.loadedAt;
    if (age >= cacheTtlMs) return undefined;
    const soonStale = options?.readAhead && rereadingSnapshot !== snapshot && age >= cacheTtlMs - readAheadMs(cacheTtlMs);
    return soonStale ? undefined : snapshot;
  };
  const install = (partition: KeyPartition, loadedAt = nowMs()): KeySnapshot => {
    // Reads can finish out of order: an older one never replaces a newer snapshot.
    if (snapshot && snapshot.loadedAt > loadedAt) return snapshot;
    const snap = buildSnapshot(partition, loadedAt, publicKeys);
    snapshot = snap;
    opts.onRefresh?.(snap);
    return snap;
  };
  // A snapshot is as old as the moment its read started: a slow read is not trusted for longer.
  const refresh = (): Promise<KeySnapshot> => {
    const startedAt = nowMs();
    return (loading ??= repo
      .load()
      .then((partition) => install(partition, startedAt))
      .finally(() => {
        loading = undefined;
      }));
  };
  const current = async () => {
    const snap = fresh();
    opts.countLookup?.(snap !== undefined);
    return snap ?? refresh();
  };

  return {
    fresh,
    rereading: () => {
      rereadingSnapshot = snapshot;
    },
    current,
    refresh,
    install,
    async publishedKeys() {
      const snap = await current();
      const t = nowMs();
      return snap.published.filter((k) => isPublished(k, t)).map((k) => k.entry);
    },
    async publicKey(kid) {
      let snap = await current();
      let k = snap.byKid.get(kid);
      const t = nowMs();
      // An unknown kid may be a key another container created a moment ago; re-read, but at
      // most every missRefreshMs so a flood of made-up kids costs at most that many reads.
      if (!k && t - lastMissRefresh >= missRefreshMs) {
        lastMissRefresh = t;
        snap = await refresh();
        k = snap.byKid.get(kid);
      }
      return k && isPublished(k, nowMs()) ? k.entry : undefined;
    },
    lastKnownPublicKey(kid) {
      const k = snapshot?.byKid.get(kid);
      return k && isPublished(k, nowMs()) ? k.entry : undefined;
    },
  };
}
