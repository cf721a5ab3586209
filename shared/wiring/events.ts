/**
 * The security event log of a runtime (docs/events.md): the `EventLog` port every group that
 * records events is given, built once per container. Only this: every function that records an
 * event bundles this module (the token function among them), and the query API's reads are in
 * event-queries.ts.
 */
import { logger } from '../logger.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { Runtime } from '../runtime.ts';
import { eventLog } from '../store/events/event-log.ts';
import { perRuntime } from './per-runtime.ts';

export const eventLogOf = /* @__PURE__ */ perRuntime((runtime: Runtime): EventLog => {
  const { db, config, metrics } = runtime;
  return eventLog(db, config.tableName, config.events.retentionDays, (event, err) => {
    // Ids only: an event never holds a secret, but the error may quote the item.
    logger.warn('A security event was not recorded', {
      event_type: event.type,
      tenant_id: event.tenant_id,
      request_id: event.request_id,
      error: (err as { name?: string }).name,
    });
    metrics.count('EventsNotRecorded');
  });
});
