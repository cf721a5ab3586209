import type { CacheCounter } from '../observability/service-metrics.ts';

/**
 * A per-container cache with a time-to-live, for records the hot path reads on every request
 * (clients, resources). Bounded, so a flood of unknown ids cannot grow it without limit.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
    /** Counts `getOrLoad`'s lookups: a hit, or a miss that loads (shared/observability/service-metrics.ts). */
    private readonly countLookup?: CacheCounter,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
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
