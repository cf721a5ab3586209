import type middy from '@middy/core';

/**
 * How a function is traced in X-Ray (docs/operations.md "Metrics and traces"). Every function runs
 * with Lambda's active tracing, so each invocation has Lambda's own segment whatever this is.
 * - `sdk`: Powertools Tracer in the bundle: a `## handler` subsegment per invocation (annotated
 *   `ColdStart` and `Service`) and a subsegment per DynamoDB, KMS and SES call;
 * - `platform`: Lambda's segment only, no X-Ray SDK in the bundle: the hot path, where the SDK's
 *   per-request CPU was measurable (docs/benchmarks.md "Metrics and traces: the cost per token").
 */
export interface Tracing {
  readonly mode: 'sdk' | 'platform';
  /** An AWS SDK v3 client whose calls become subsegments (with `sdk`; the client itself with `platform`). */
  captureClient<C>(client: C): C;
  /** Opens the handler's subsegment before an invocation and closes it after (with `sdk`). */
  readonly invocation: middy.MiddlewareObj<unknown, unknown> | undefined;
}

export const PLATFORM_TRACING: Tracing = { mode: 'platform', captureClient: (client) => client, invocation: undefined };
