import type middy from '@middy/core';
import { getRuntime } from '../runtime.ts';

/** What the status of an answer tells the metrics: 429 `Throttled`, 503 `ServiceUnavailable`. */
const COUNTED_STATUS = { 429: 'Throttled', 503: 'ServiceUnavailable' } as const;

/**
 * Metrics and traces around one invocation (shared/observability/, docs/operations.md "Metrics and
 * traces"), the first middleware of a handler so that it wraps all the others: the handler's
 * X-Ray subsegment where the function is traced with the SDK; at the end, a 429 or 503 answer
 * counted by route group (`groupOf`), and the container's counters published when due.
 */
export function observeInvocation<E, R>(groupOf?: (event: E) => string | undefined): middy.MiddlewareObj<E, R> {
  const done = (request: middy.Request<E, R>) => {
    const { metrics, tracing } = getRuntime();
    const status = (request.response as { statusCode?: number } | undefined)?.statusCode;
    const counted = status === 429 || status === 503 ? COUNTED_STATUS[status] : undefined;
    if (counted) metrics.count(counted, ['route_group', groupOf?.(request.event) ?? 'unknown']);
    metrics.invocationDone(request.context.functionName);
    const hooks = tracing.invocation as middy.MiddlewareObj<E, R> | undefined;
    // An error the pipeline answered with a 4xx is the caller's, not a fault of this function.
    const fault = request.error !== undefined && (status === undefined || status >= 500);
    return fault ? hooks?.onError?.(request) : hooks?.after?.(request);
  };
  return {
    before: (request) => (getRuntime().tracing.invocation as middy.MiddlewareObj<E, R> | undefined)?.before?.(request),
    after: done,
    onError: done,
  };
}
