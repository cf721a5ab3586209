/**
 * The event forwarder's dependencies (docs/events.md "Streaming: the EventBridge bus"): the table
 * stream's events to the stage's bus in AWS, or to any publisher (locally, `<DATA_DIR>/events.jsonl`).
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type DependencyBudget, sdkClientOptions } from '../aws/dependency-budget.ts';
import { eventSource } from '../events/event-entry.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import { eventBridgePublisher } from '../events/eventbridge-publisher.ts';
import type { ForwardDeps } from '../events/forward-events.ts';
import { logger } from '../logger.ts';
import type { Runtime } from '../runtime.ts';
import { eventOfStreamImage } from '../store/events/streamed-event.ts';
import { perRuntime } from './per-runtime.ts';

/**
 * EventBridge's time budget: the forwarder is no request path, so more than a request's, yet a
 * stalled call still ends well inside the function's timeout (infra/constructs/event-stream.ts).
 */
export const EVENTBRIDGE_BUDGET: DependencyBudget = { connectTimeoutMs: 1000, attemptTimeoutMs: 2000, maxAttempts: 2 };

/** The forwarder's dependencies with this publisher. */
export function forwarderDepsWith(runtime: Runtime, publisher: EventPublisher): ForwardDeps {
  return {
    publisher,
    eventOf: eventOfStreamImage,
    source: eventSource(runtime.config.stage),
    metrics: runtime.metrics,
    // Ids and codes only: Lambda delivers these records again, the operator sees why they failed.
    undelivered: (events) => logger.error('security events not delivered to the bus', { events }),
  };
}

/** In AWS: the stage's bus (`EVENT_BUS_NAME`). */
export const forwarderDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): ForwardDeps => {
  const busName = runtime.config.events.busName;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set: the event forwarder has no bus to put events on.');
  const client = runtime.tracing.captureClient(
    new EventBridgeClient({ region: runtime.config.region, ...sdkClientOptions(EVENTBRIDGE_BUDGET) }),
  );
  return forwarderDepsWith(runtime, eventBridgePublisher(client, busName));
});
