/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (an esbuild alias in `BUNDLING`,
 * infra/constructs/service-function.ts). Its one importer there is `@aws-sdk/endpoint-cache`: every
 * DynamoDB client builds an `EndpointCache` for endpoint discovery, which this service never turns
 * on (shared/store/core/dynamodb-client.ts sets `endpointDiscoveryEnabled: false`) and which no DynamoDB
 * operation of the SDK we bundle uses, so the cache is built and never filled. mnemonist's typed-array LRU and the obliterator
 * iterators it requires cost the token bundle 6.4 KB (docs/benchmarks.md "Token function bundle,
 * third round"). This is not a replacement of the AWS SDK: the SDK's code is bundled untouched, and
 * only the generic LRU its never-used discovery cache holds is this Map-based one, with exactly the
 * members `EndpointCache` uses and mnemonist's behaviour for them, for string keys as the SDK's
 * are (test/infra/endpoint-lru-cache.test.ts drives both with the same random operations). Tests
 * and `npm start` run the sources and keep mnemonist.
 */
export default class LRUCache<K, V> {
  readonly capacity: number;
  /** In recency order: the first entry is the least recently used, the last the most. */
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    if (typeof capacity !== 'number' || capacity <= 0) throw new Error('mnemonist/lru-cache: capacity should be positive number.');
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Stores the value as the most recently used; when full, a new key evicts the least recently used one. */
  set(key: K, value: V): void {
    if (this.#entries.has(key)) this.#entries.delete(key);
    else if (!(this.#entries.size < this.capacity)) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }

  /** The value, now the most recently used; undefined for a key not held. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
