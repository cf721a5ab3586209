import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * What the service counts (docs/operations.md "Metrics and traces"). Each is a count, with at most
 * one dimension besides `service`:
 * - `TokensIssued` by `grant_type` (the grant's short name, or `implicit` from `/authorize`);
 * - `LoginsFailed` by `reason` (`invalid_credentials`, `locked`): the password and otp grants and
 *   the hosted login page's password and code steps;
 * - `Throttled` and `ServiceUnavailable` by `route_group`: every 429 and 503 a function answers;
 * - `CacheHit` and `CacheMiss` by `cache` (`record`, `verified_token`, `key`, `user`, `rbac`);
 * - `PasskeyCounterRegressed`: a verified passkey assertion whose signature counter went backwards;
 * - `EventsNotRecorded`: a security event whose own write failed (docs/events.md "Recording");
 * - `EventsDeliveryFailed`: an event the forwarder could not put on the bus after its retry, and
 *   `SignInsFailed` by `tenant_id`: each `login.failed` event the forwarder sees (docs/events.md
 *   "Alarms and dashboard").
 * Powertools adds `ColdStart` by `function_name` once per container.
 */
export type MetricName =
  | 'TokensIssued'
  | 'LoginsFailed'
  | 'Throttled'
  | 'ServiceUnavailable'
  | 'CacheHit'
  | 'CacheMiss'
  | 'PasskeyCounterRegressed'
  | 'EventsNotRecorded'
  | 'EventsDeliveryFailed'
  | 'SignInsFailed';

/** A dimension name and its value. */
export type Dimension = readonly [name: string, value: string];

export interface ServiceMetrics {
  /** Adds one to a counter of this container: no I/O, a map update. */
  count(name: MetricName, dimension?: Dimension): void;
  /**
   * The end of an invocation: the first one publishes the cold-start metric, and the counters are
   * published when due (`emfMetrics`).
   */
  invocationDone(functionName: string): void;
}

/** Counts nothing (no namespace configured: locally, in tests). */
export const NO_METRICS: ServiceMetrics = { count: () => {}, invocationDone: () => {} };

/**
 * The caches whose hits and misses are counted: `record` the token path's client and resource
 * records (shared/wiring/token-path/token-path-records.ts), `verified_token` the signatures already verified
 * (shared/oauth/verify-resource-token.ts), `key` the signing-key snapshot (shared/keys/key-cache.ts),
 * `user` the users and login families a user token's check reads (shared/wiring/token-path/user-token-records.ts),
 * `rbac` the roles and groups of a user's effective permissions (shared/store/token-path/rbac-records.ts).
 */
export const CACHES = {
  record: ['cache', 'record'],
  verified_token: ['cache', 'verified_token'],
  key: ['cache', 'key'],
  user: ['cache', 'user'],
  rbac: ['cache', 'rbac'],
} as const satisfies Record<string, Dimension>;

/** One hit-or-miss counter of a cache, bound to its dimension (passed to shared/ttl-cache.ts). */
export type CacheCounter = (hit: boolean) => void;

export function cacheCounter(metrics: ServiceMetrics, cache: keyof typeof CACHES): CacheCounter {
  const dimension = CACHES[cache];
  return (hit) => metrics.count(hit ? 'CacheHit' : 'CacheMiss', dimension);
}

export interface EmfMetricsOptions {
  namespace: string;
  serviceName: string;
  /**
   * How long a container holds its counts before publishing them: 0 publishes at the end of every
   * invocation that counted something. Counts are published at the end of the first invocation
   * that finds the last publication at least this old, so a function called less often than that
   * publishes each invocation's counts at once; what a busy container counted since its last
   * publication is lost if Lambda shuts it down (docs/operations.md "Metrics and traces").
   */
  publishIntervalMs: number;
  clock?: () => number;
}

interface Counter {
  name: MetricName;
  dimension: Dimension | undefined;
  value: number;
}

/**
 * Counters published as CloudWatch embedded metric format lines (Powertools Metrics writes them to
 * stdout, CloudWatch Logs turns them into metrics): one line per dimension value with every metric
 * counted under it, each carrying the sum since the last publication. One EMF line per request was
 * measurable on the token path (docs/benchmarks.md "Metrics and traces: the cost per token"), one
 * line a minute per container is not.
 */
export function emfMetrics(o: EmfMetricsOptions): ServiceMetrics {
  const clock = o.clock ?? Date.now;
  const emf = new Metrics({ namespace: o.namespace, serviceName: o.serviceName });
  const counters = new Map<string, Counter>();
  let lastPublished = Number.NEGATIVE_INFINITY;
  let coldStart = true;

  const publish = () => {
    const byDimension = new Map<string, Counter[]>();
    for (const c of counters.values()) {
      const key = c.dimension ? `${c.dimension[0]}=${c.dimension[1]}` : '';
      byDimension.set(key, [...(byDimension.get(key) ?? []), c]);
    }
    counters.clear();
    for (const group of byDimension.values()) {
      const dimension = group[0]!.dimension;
      if (dimension) emf.addDimension(dimension[0], dimension[1]);
      for (const c of group) emf.addMetric(c.name, MetricUnit.Count, c.value);
      emf.publishStoredMetrics();
    }
  };

  return {
    count(name, dimension) {
      const key = dimension ? `${name}|${dimension[0]}|${dimension[1]}` : name;
      const c = counters.get(key);
      if (c) c.value++;
      else counters.set(key, { name, dimension, value: 1 });
    },
    invocationDone(functionName) {
      if (coldStart) {
        coldStart = false;
        emf.captureColdStartMetric(functionName);
      }
      if (counters.size === 0) return;
      const now = clock();
      if (now - lastPublished < o.publishIntervalMs) return;
      lastPublished = now;
      publish();
    },
  };
}

/** The metrics of a runtime from its configuration: published only where a namespace is set. */
export function serviceMetricsOf(
  c: { serviceName: string; metricsNamespace: string | undefined; metricsPublishMs: number },
  clock?: () => number,
): ServiceMetrics {
  if (!c.metricsNamespace) return NO_METRICS;
  return emfMetrics({
    namespace: c.metricsNamespace,
    serviceName: c.serviceName,
    publishIntervalMs: c.metricsPublishMs,
    ...(clock ? { clock } : {}),
  });
}
