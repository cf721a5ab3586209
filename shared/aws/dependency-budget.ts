import { ConfiguredRetryStrategy } from '@smithy/core/retry';

/**
 * The time one AWS dependency call may take (docs/design.md §3.14): how long to wait for a connection,
 * how long each attempt may take once connected, and how many attempts in all. Every AWS SDK client
 * of the service (DynamoDB, KMS, and SES when it comes) is built from one of these, read from the
 * frozen config, so that a stalled dependency costs a request at most `worstCaseMs` and becomes a
 * fast 503 well inside the function timeout (shared/routes/function-groups.ts), itself inside API Gateway's 29 s.
 */
export interface DependencyBudget {
  /** TCP connect (and TLS) to the endpoint. */
  readonly connectTimeoutMs: number;
  /** From sending an attempt to its full response. */
  readonly attemptTimeoutMs: number;
  /** Attempts in all, the first included (1 = no retry). */
  readonly maxAttempts: number;
}

/** Longest wait between two attempts (full jitter below it). */
export const MAX_BACKOFF_MS = 100;

/** The longest one call can take under this budget: every attempt timing out, with the longest waits between them. */
export function worstCaseMs(budget: DependencyBudget): number {
  return budget.maxAttempts * (budget.connectTimeoutMs + budget.attemptTimeoutMs) + (budget.maxAttempts - 1) * MAX_BACKOFF_MS;
}

/**
 * Retries with full jitter ("Exponential Backoff and Jitter", AWS Architecture Blog), never longer
 * than MAX_BACKOFF_MS: within a request's budget a long pause helps nobody, the caller retries
 * after our 503's Retry-After instead.
 */
function retryStrategy(maxAttempts: number): ConfiguredRetryStrategy {
  return new ConfiguredRetryStrategy(maxAttempts, (attempt) => Math.floor(Math.random() * Math.min(MAX_BACKOFF_MS, 25 * 2 ** attempt)));
}

/**
 * The constructor options every AWS SDK v3 client takes for this budget:
 * `new DynamoDBClient({ region, ...sdkClientOptions(config.budgets.dynamodb) })`.
 * `throwOnRequestTimeout` makes the attempt timeout an error (TimeoutError, retried as transient)
 * instead of a logged warning, which is the SDK's default.
 */
export function sdkClientOptions(budget: DependencyBudget) {
  return {
    maxAttempts: budget.maxAttempts,
    retryStrategy: retryStrategy(budget.maxAttempts),
    requestHandler: {
      connectionTimeout: budget.connectTimeoutMs,
      requestTimeout: budget.attemptTimeoutMs,
      throwOnRequestTimeout: true,
    },
  };
}
