/**
 * The security event log of a runtime (docs/events.md): the `EventLog` port every group that
 * records events is given, built once per container, and the reads of the query API.
 */
import { logger } from '../logger.ts';
import type { EventQueryDeps } from '../management/events/list-events.ts';
import type { EventLog } from '../ports/event-log.ts';
import type { Runtime } from '../runtime.ts';
import { eventLog } from '../store/events/event-log.ts';
import { eventsRepository } from '../store/events/events-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
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

/** GET /events and GET /users/{user_id}/events (docs/events.md "Query API"). */
export const eventQueryDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): EventQueryDeps => {
  const { db, config, now } = runtime;
  return {
    events: eventsRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    cursorKey: () => runtime.serviceSecret('cursor'),
  };
});
