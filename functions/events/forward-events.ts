import middy from '@middy/core';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { forwardEvents } from '#shared/events/forward-events.ts';
import { logger } from '#shared/logger.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { getRuntime } from '#shared/runtime.ts';
import { forwarderDeps } from '#shared/wiring/event-stream.ts';

/**
 * The event forwarder (docs/events.md "Streaming: the EventBridge bus"): the table stream's new
 * event items, as the event source mapping's filter passes them, put on the stage's bus. Not an
 * HTTP endpoint, so no HTTP pipeline. Records still undelivered after one retry are answered as
 * batch item failures, and Lambda delivers them again.
 */
async function forward(event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> {
  logger.addContext(context);
  return forwardEvents(event.Records, forwarderDeps(getRuntime()));
}

/** With its X-Ray subsegment, and the counts published (shared/observability/observe-invocation.ts). */
export const handler = middy(forward, { timeoutEarlyInMillis: 0 }).use(observeInvocation());
