/**
 * The query API's dependencies (GET /events and GET /users/{user_id}/events, docs/events.md
 * "Query API"), apart from events.ts so that recording an event bundles none of the reads.
 */
import type { EventQueryDeps } from '../management/events/list-events.ts';
import type { Runtime } from '../runtime.ts';
import { eventsRepository } from '../store/events/events-repository.ts';
import { usersRepository } from '../store/users/users-repository.ts';
import { perRuntime } from './per-runtime.ts';

/** GET /events and GET /users/{user_id}/events (docs/events.md "Query API"). */
export const eventQueryDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): EventQueryDeps => {
  const { db, config, now } = runtime;
  return {
    events: eventsRepository(db, config.tableName, now),
    users: usersRepository(db, config.tableName, now),
    cursorKey: () => runtime.serviceSecret('cursor'),
  };
});
