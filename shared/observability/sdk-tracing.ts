import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Tracing } from './tracing.ts';

/**
 * Powertools Tracer (X-Ray): the bundle of every function traced with the SDK resolves
 * `#function-tracing` here (infra/constructs/service-function.ts `tracer`). The Tracer turns itself
 * off outside Lambda (no `AWS_EXECUTION_ENV`) or with `POWERTOOLS_TRACE_ENABLED=false`.
 *
 * - No global capture of HTTPS requests: the only outgoing calls are the AWS SDK clients, captured
 *   one by one (`captureClient`), so each call is one subsegment, not two.
 * - No response in the trace (`captureResponse: false`): responses carry tokens and secrets. The
 *   subsegments of AWS calls record the operation, table or key id and request id, never
 *   parameters (the X-Ray SDK's allow-list), so no item key or plaintext reaches X-Ray.
 */
export function functionTracing(serviceName: string): Tracing {
  const tracer = new Tracer({ serviceName, captureHTTPsRequests: false });
  return {
    mode: 'sdk',
    captureClient: (client) => tracer.captureAWSv3Client(client),
    invocation: captureLambdaHandler(tracer, { captureResponse: false }),
  };
}
