/**
 * infra/bundling/endpoint-lru-cache.ts stands in for `mnemonist/lru-cache` in the Lambda bundles
 * (the DynamoDB client's endpoint discovery cache). The same random sequences of the operations
 * `@aws-sdk/endpoint-cache` calls go to ours and to the real mnemonist (still in node_modules, the
 * SDK's own dependency), and every answer must match, evictions included.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import LRUCache from '../../infra/bundling/endpoint-lru-cache.ts';

/** mnemonist as `@aws-sdk/endpoint-cache` resolves it (it is not our own dependency). */
const requireFromEndpointCache = createRequire(createRequire(import.meta.url).resolve('@aws-sdk/endpoint-cache'));
const Mnemonist = requireFromEndpointCache('mnemonist/lru-cache') as new (
  capacity: number,
) => {
  set(k: string, v: number): unknown;
  get(k: string): number | undefined;
  peek(k: string): number | undefined;
  has(k: string): boolean;
  clear(): void;
  size: number;
};

type Op = { op: 'set'; key: string; value: number } | { op: 'get' | 'peek' | 'has'; key: string } | { op: 'clear' };

// Few keys, so that sequences hit, miss, overwrite and evict.
const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('get' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('peek' as const), key }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('has' as const), key }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
);

describe('endpoint-lru-cache: mnemonist/lru-cache for the members EndpointCache uses', () => {
  it('answers every get, peek, has and size like mnemonist, for random operation sequences and capacities', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 80 }), (capacity, ops) => {
        const ours = new LRUCache<string, number>(capacity);
        const theirs = new Mnemonist(capacity);
        for (const o of ops) {
          if (o.op === 'set') {
            expect(ours.set(o.key, o.value)).toBe(theirs.set(o.key, o.value));
          } else if (o.op === 'clear') {
            ours.clear();
            theirs.clear();
          } else {
            expect(ours[o.op](o.key), `${o.op}(${o.key})`).toEqual(theirs[o.op](o.key));
          }
          expect(ours.size).toBe(theirs.size);
        }
        // What is left, key by key, without touching recency.
        for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) expect(ours.peek(k)).toEqual(theirs.peek(k));
      }),
      { numRuns: 500 },
    );
  });

  it('evicts the least recently used key, where a get counts as a use and a peek does not', () => {
    const cache = new LRUCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.peek('a');
    cache.set('c', 3); // a: peeked only, still the least recently used
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([false, true, true]);
    cache.get('b');
    cache.set('d', 4); // c: b was read since
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([2, undefined, 4]);
    expect(cache.size).toBe(2);
  });

  it('refuses a capacity that is not a positive number, as mnemonist does', () => {
    for (const capacity of [0, -1, '3' as unknown as number]) {
      expect(() => new LRUCache(capacity)).toThrow('capacity should be positive number');
      expect(() => new Mnemonist(capacity)).toThrow('capacity should be positive number');
    }
  });
});
