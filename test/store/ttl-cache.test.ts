import { describe, expect, it } from 'vitest';
import { readAheadMs, TtlCache } from '#shared/ttl-cache.ts';

/** The per-container record cache's TTL and its read-ahead (ttl-cache.ts), on a clock the test moves. */
describe('TtlCache', () => {
  it('holds an entry for its TTL; with readAhead it counts as stale for the last quarter (at most 250 ms)', () => {
    let now = 1_000_000;
    const cache = new TtlCache<string>(1_000, 10, () => now);
    expect(readAheadMs(1_000)).toBe(250);
    expect(readAheadMs(10_000)).toBe(250);
    expect(readAheadMs(200)).toBe(50);
    cache.set('a', 'x');
    now += 749;
    expect(cache.get('a', { readAhead: true })).toBe('x');
    now += 1; // 250 ms left: a request deciding its read takes it now
    expect(cache.get('a', { readAhead: true })).toBeUndefined();
    // ...while a plain lookup still finds it: the entry is not dropped by the read-ahead.
    expect(cache.get('a')).toBe('x');
    now += 249;
    expect(cache.get('a')).toBe('x');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
  });

  it('one re-read per entry: once a request is re-reading a soon-stale entry, the others keep its value until it expires', () => {
    let now = 1_000_000;
    const cache = new TtlCache<string>(1_000, 10, () => now);
    cache.set('a', 'x');
    cache.set('b', 'y');
    now += 800;
    expect(cache.get('a', { readAhead: true })).toBeUndefined(); // the first request decides to read it...
    cache.rereading('a'); // ...and starts that read
    expect(cache.get('a', { readAhead: true })).toBe('x'); // the requests beside it do not wait for it
    expect(cache.get('b', { readAhead: true })).toBeUndefined(); // another entry is not marked
    cache.rereading('missing'); // nothing to mark: no entry is made
    expect(cache.get('missing')).toBeUndefined();
    now += 199;
    expect(cache.get('a', { readAhead: true })).toBe('x');
    now += 1; // the TTL still bounds it: a re-read that never came back leaves nothing stale behind
    expect(cache.get('a', { readAhead: true })).toBeUndefined();
    expect(cache.get('a')).toBeUndefined();
    // The re-read's value starts a new TTL, unmarked.
    cache.set('a', 'x2');
    now += 800;
    expect(cache.get('a', { readAhead: true })).toBeUndefined();
  });

  it('a TTL of 0 caches nothing', () => {
    const cache = new TtlCache<string>(0, 10, () => 0);
    cache.set('a', 'x');
    expect(cache.get('a')).toBeUndefined();
  });
});
