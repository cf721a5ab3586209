import { jsonResponse } from '#shared/http/response.ts';
import { list } from '#shared/http/response-spec.ts';
import { eventListQuery, eventsCollection } from '#shared/management/events/event-list-query.ts';
import { listEvents } from '#shared/management/events/list-events.ts';
import { eventQueryDeps } from '#shared/wiring/event-queries.ts';
import { managementHandler } from '#shared/wiring/management-handler.ts';

/** GET /identity/v1/events (docs/contract.md §6; docs/events.md "Query API"): the tenant's security events, newest first. */
export const handler = managementHandler({ query: eventListQuery, responses: { 200: list(eventsCollection) } }, async (req) =>
  jsonResponse(200, await listEvents(eventQueryDeps(req.runtime), req.access, req.query)),
);
