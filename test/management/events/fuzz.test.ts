import { eventListQuery, eventsCollection } from '#shared/management/events/event-list-query.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { type FuzzRoute, fuzzArea, M } from '../../support/fuzz/fuzz-support.ts';

/**
 * docs/design.md §3.12 over the events query routes (docs/events.md "Query API"): whatever the
 * query string, path parameters and headers, the answer is never a 5xx, and every 4xx is a JSON
 * `{code, message}`.
 */
const routes: FuzzRoute[] = [
  { route: `GET ${M}/events`, collection: eventsCollection, query: eventListQuery },
  { route: `GET ${M}/users/{user_id}/events`, path: UserPath, collection: eventsCollection, query: eventListQuery },
];

fuzzArea('fuzz: the events query routes never answer 5xx to client input', {
  table: 'fuzz-events',
  salt: 1500,
  area: (r) => r.path === `${M}/events` || r.path === `${M}/users/{user_id}/events`,
  routes,
});
