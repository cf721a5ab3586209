import type { CacheCounter } from './observability/service-metrics.ts';

/**
 * How long before its expiry an entry counts as stale where a request decides what to fold into
 * its one read (`{ readAhead: true }`): a quarter of the TTL, at most 250 ms. What that read
 * takes then stays fresh until the request ends, instead of running out half-way through it and
 * costing the request a second read (a refresh must cost at most one read). Records are re-read a little earlier than their TTL in exchange.
 */
export const readAheadMs = (ttlMs: number): number => Math.min(250, Math.floor(ttlMs / 4));

/**
 * `readAhead`: also undefined when the entry would expire within `readAheadMs` (see above), unless
 * another request already re-reads it (`rereading`): then its value, which is still within its
 * TTL. So one request re-reads a soon-stale entry and the requests beside it do not wait for that
 * read; otherwise every request in the read-ahead window would make a read of its own and wait for
 * it, a burst of reads each TTL that stalls every concurrent caller behind a busy table
 * (docs/benchmarks.md "The open-loop stall").
 */
export interface Lookahead {
  readAhead?: boolean;
}

/**
 * A per-container cache with a time-to-live, for records the hot path reads on every request
 * (clients, resources). Bounded, so a flood of unknown ids cannot grow it without limit.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number; rereading?: true }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
    /** Counts `getOrLoad`'s lookups: a hit, or a miss that loads (shared/observability/service-metrics.ts). */
    private readonly countLookup?: CacheCounter,
  ) {}

  get(key: string, options?: Lookahead): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.clock();
    if (e.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    // Soon stale: the caller reads it now, in the read it makes anyway (the entry stays until then),
    // unless another request is reading it already.
    if (options?.readAhead && !e.rereading && e.expires - readAheadMs(this.ttlMs) <= now) return undefined;
    return e.value;
  }

  /**
   * A request starts a read of this soon-stale entry (see `Lookahead`): until the entry expires or
   * that read replaces it, `get(key, { readAhead: true })` gives its value to the others. A read
   * that fails leaves the mark, and the entry then simply expires.
   */
  rereading(key: string): void {
    const e = this.entries.get(key);
    if (e) e.rereading = true;
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion: Map iterates in insertion order.
      const first = this.entries.keys().next();
      if (!first.done) this.entries.delete(first.value);
    }
    this.entries.set(key, { value, expires: this.clock() + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Reads through: one load per key per TTL, and concurrent misses share one load. */
  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    this.countLookup?.(hit !== undefined);
    if (hit !== undefined) return hit;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = load().finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const value = await pending;
    this.set(key, value);
    return value;
  }

  private readonly inflight = new Map<string, Promise<V>>();
}
