import { AsyncLocalStorage } from 'node:async_hooks';
import type { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// The X-Ray SDK, or none: decided per function when it is bundled (./observability/platform-tracing.ts).
import { functionTracing } from '#function-tracing';
import { type Config, loadConfig } from './config.ts';
import { createKeyServices, type ItemFeed } from './keys/create-key-services.ts';
import type { KeyStore, SecretBox } from './keys/key-store.ts';
import { type ServiceMetrics, serviceMetricsOf } from './observability/service-metrics.ts';
import { PLATFORM_TRACING, type Tracing } from './observability/tracing.ts';
import type { ApiDocs } from './openapi/api-docs.ts';
import { RESOURCE_LIMITS } from './records/resource-record.ts';
import { createDocumentClient } from './store/core/dynamodb-client.ts';
import { cachedRevocations } from './store/revocations/cached-revocations.ts';
import { followedRevocations } from './store/revocations/followed-revocations.ts';
import { type RevocationsRepository, revocationsRepository } from './store/revocations/revocations-repository.ts';

/**
 * The composition root (docs/design.md §3.2): everything a use case may depend on, built once per
 * process from the frozen config. Handlers pass pieces of it to use cases as arguments; tests
 * build their own with `createRuntime` and install it with `setRuntime`.
 */
export interface Runtime {
  readonly config: Config;
  readonly db: DynamoDBDocumentClient;
  /** Injectable clock (jose's `currentDate` idea): every "now" in the service comes from here. */
  readonly now: () => Date;
  readonly keys: KeyStore;
  readonly secretBox: SecretBox;
  /** A 32-byte service secret by name (e.g. `cursor` for list cursors), created on first use, kept wrapped. */
  readonly serviceSecret: (name: string) => Promise<Buffer>;
  /** The secret box's data key item, folded into the token path's one read (docs/keys.md). */
  readonly dataKeyFeed?: ItemFeed;
  readonly revocations: RevocationsRepository;
  /**
   * `/openapi.json` and `/docs`, when made live (locally); else the bundle's files
   * (shared/openapi/api-docs.ts `apiDocsOf`, which only the two docs functions carry).
   */
  readonly apiDocs?: ApiDocs;
  /** This container's counters (shared/observability/service-metrics.ts); published where a namespace is configured. */
  readonly metrics: ServiceMetrics;
  /** X-Ray: the SDK clients above are captured with it (shared/observability/tracing.ts). */
  readonly tracing: Tracing;
}

export interface RuntimeOverrides {
  db?: DynamoDBDocumentClient;
  kms?: KMSClient;
  now?: () => Date;
  apiDocs?: ApiDocs;
  /** @default from the config (`serviceMetricsOf`) */
  metrics?: ServiceMetrics;
  /** @default PLATFORM_TRACING: Lambda's own segment, nothing in process */
  tracing?: Tracing;
}

export function createRuntime(config: Config, overrides: RuntimeOverrides = {}): Runtime {
  const tracing = overrides.tracing ?? PLATFORM_TRACING;
  const capture = <C>(client: C) => tracing.captureClient(client);
  const db =
    overrides.db ??
    createDocumentClient({ region: config.region, endpoint: config.dynamodbEndpoint, budget: config.budgets.dynamodb, capture });
  const now = overrides.now ?? (() => new Date());
  const metrics = overrides.metrics ?? serviceMetricsOf(config.observability, () => now().getTime());
  const keyServices = createKeyServices({ config, db, now, metrics, capture, ...(overrides.kms ? { kms: overrides.kms } : {}) });
  return {
    config,
    db,
    now,
    ...keyServices,
    revocations: revocationList(config, db, now),
    ...(overrides.apiDocs ? { apiDocs: overrides.apiDocs } : {}),
    metrics,
    tracing,
  };
}

/**
 * Each container follows the revocation log once a second (docs/tokens.md "Revocation checks and
 * their cost"); with REVOCATION_CACHE_TTL_SECONDS=0 every check reads the table instead.
 */
function revocationList(config: Config, db: DynamoDBDocumentClient, now: () => Date): RevocationsRepository {
  const table = revocationsRepository(db, config.tableName, now);
  const refreshMs = config.revocationCacheTtlMs;
  if (refreshMs <= 0) return table;
  const clock = () => now().getTime();
  const { connectTimeoutMs, attemptTimeoutMs, maxAttempts } = config.budgets.dynamodb;
  return followedRevocations(table, cachedRevocations(table, refreshMs, clock), {
    refreshMs,
    // A revocation is stored within its write's budget of its timestamp; 2 s for clock skew.
    overlapMs: connectTimeoutMs + attemptTimeoutMs * maxAttempts + 2000,
    horizonMs: RESOURCE_LIMITS.maxTokenLifetime * 1000,
    clock,
  });
}

let current: Runtime | undefined;
const scoped = new AsyncLocalStorage<Runtime>();

/** In Lambda: one runtime per container, from the environment. Locally: the stack's own runtime. */
export function getRuntime(): Runtime {
  const own = scoped.getStore();
  if (own) return own;
  if (!current) {
    const config = loadConfig();
    current = createRuntime(config, { tracing: functionTracing(config.observability.serviceName) });
  }
  return current;
}

/** Runs `fn` with `runtime` as the runtime (the local server runs each request of a stack this way). */
export function runWithRuntime<T>(runtime: Runtime, fn: () => T): T {
  return scoped.run(runtime, fn);
}

export function setRuntime(runtime: Runtime | undefined): void {
  current = runtime;
}
