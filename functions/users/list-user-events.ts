import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { eventListQuery, eventsCollection } from '#shared/management/events/event-list-query.ts';
import { listUserEvents } from '#shared/management/events/list-events.ts';
import { UserPath } from '#shared/management/users/user-body-schemas.ts';
import { eventQueryDeps } from '#shared/wiring/event-queries.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/users/{user_id}/events (docs/contract.md §6; docs/events.md "Query API"): one user's security events. */
export const handler = managementHandler(
  { path: UserPath, query: eventListQuery, responses: { 200: list(eventsCollection) } },
  async (req) => jsonResponse(200, await listUserEvents(eventQueryDeps(req.runtime), req.access, req.path.user_id, req.query)),
);
