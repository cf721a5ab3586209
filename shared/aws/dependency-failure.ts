/** Node.js socket errors that mean "could not reach it" or "it hung up", never "it said no". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * What an AWS dependency throws when it is unreachable, too slow, or busy after the SDK's retries
 * (shared/aws/dependency-budget.ts): an attempt or connection timeout (`TimeoutError`), a refused
 * or reset connection, throttling, or a 5XX of the service. Such a failure is a 503 with
 * Retry-After on every route (docs/contract.md §2), never a 500 and never a success (docs/design.md §3.8).
 */
export function isDependencyUnavailable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'TimeoutError' || NETWORK_CODES.has(e.code ?? '')) return true;
  const status = e.$metadata?.httpStatusCode;
  return status === 429 || (status !== undefined && status >= 500);
}

/** Whether the failure was a timeout (what the dependency-timeout alarm counts, docs/operations.md). */
export function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; code?: string } | undefined;
  return e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT';
}
