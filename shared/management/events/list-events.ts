import { type CursorBinding, openCursor, queryFingerprint, sealCursor } from '../../lists/cursor.ts';
import { type ListEnvelope, shapeItem } from '../../lists/index.ts';
import type { EventFilter, EventQuery, EventsRepository } from '../../store/events/events-repository.ts';
import type { UsersRepository } from '../../store/users/users-repository.ts';
import { loadVisible, type ManagementAccess } from '../kit/access.ts';
import { type EventListParams, eventsCollection } from './event-list-query.ts';

/** What the event queries depend on, passed as an argument (docs/design.md §3.2). */
export interface EventQueryDeps {
  readonly events: Pick<EventsRepository, 'list'>;
  readonly users: Pick<UsersRepository, 'get'>;
  /** The list cursors' key (docs/lists.md §5). */
  readonly cursorKey: () => Promise<Buffer>;
}

/**
 * GET /events (docs/events.md "Query API", `read:events`): the events of the tenant the caller
 * works in (docs/contract.md §4: a tenant-bound caller's own, a global caller's `tenant_id` header),
 * newest first. `q=(user_id=...)` reads that user's index, still only this tenant's events.
 */
export function listEvents(deps: EventQueryDeps, access: ManagementAccess, params: EventListParams): Promise<ListEnvelope> {
  return listTenantEvents(deps, access.ctx.tenantId, 'events', undefined, params);
}

/**
 * GET /users/{user_id}/events: one user's events, in the user's tenant. A user the caller cannot
 * see (another tenant's, or none) is 404, as every /users/{user_id} route (docs/contract.md §4).
 */
export async function listUserEvents(
  deps: EventQueryDeps,
  access: ManagementAccess,
  userId: string,
  params: EventListParams,
): Promise<ListEnvelope> {
  const user = await loadVisible(deps.users, access.ctx, userId, 'User');
  return listTenantEvents(deps, user.tenant_id, `users/${user.id}/events`, user.id, params);
}

/** Dates the sort key can hold: ISO 8601 with a four-digit year. */
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

async function listTenantEvents(
  deps: EventQueryDeps,
  tenantId: string,
  path: string,
  pathUser: string | undefined,
  params: EventListParams,
): Promise<ListEnvelope> {
  const plan = planQuery(params, pathUser);
  // The cursor opens only for this list, tenant and query (docs/lists.md §5).
  const binding: CursorBinding = {
    collection: `${eventsCollection.name}|${tenantId}|${path}`,
    query: queryFingerprint({ filter: params.filter, from: params.from ?? null, to: params.to ?? null }),
  };
  const key = await deps.cursorKey();
  const cursor = params.cursor === undefined ? undefined : openCursor(key, binding, params.cursor);
  const position = cursor?.position ?? 0;
  const envelope = (items: Record<string, unknown>[], nextKey?: Readonly<Record<string, string | number>>): ListEnvelope => ({
    count: items.length,
    has_more: nextKey !== undefined,
    limit: params.limit,
    offset: position,
    items: items.map((e) => shapeItem(eventsCollection, e, { fields: params.fields, expand: false })),
    ...(nextKey ? { next_cursor: sealCursor(key, binding, { position: position + items.length, startKey: nextKey }) } : {}),
  });
  if (plan === 'empty') return envelope([]);
  const page = await deps.events.list({
    ...plan,
    tenantId,
    limit: params.limit,
    ...(cursor?.startKey ? { startKey: cursor.startKey } : {}),
  });
  return envelope(page.items as unknown as Record<string, unknown>[], page.nextKey);
}

/**
 * The `q` terms and `from`/`to` as a store query: `occurred_at` terms narrow the key range (a
 * date is its whole UTC day), a `user_id` picks the user's index (on /users/{id}/events the path
 * already did), the rest are filters. `'empty'`: nothing can match, so nothing is read.
 */
function planQuery(params: EventListParams, pathUser: string | undefined): Omit<EventQuery, 'tenantId' | 'limit'> | 'empty' {
  let from = params.from ?? Number.NEGATIVE_INFINITY;
  let to = params.to ?? Number.POSITIVE_INFINITY;
  let userId = pathUser;
  const filters: EventFilter[] = [];
  for (const t of params.filter) {
    if (t.attribute === 'occurred_at') {
      if (t.value.kind !== 'instant') return 'empty';
      from = Math.max(from, t.value.from);
      to = Math.min(to, t.value.to);
    } else if (t.attribute === 'user_id' && userId === undefined && t.value.kind === 'string') {
      userId = t.value.value;
    } else if (t.attribute === 'type' || t.attribute === 'client_id' || t.attribute === 'user_id') {
      filters.push({ attribute: t.attribute, value: t.value.kind === 'string' ? t.value.value : null });
    }
  }
  if (from >= to || from > LAST_INSTANT) return 'empty';
  return {
    ...(userId !== undefined ? { userId } : {}),
    filters,
    ...(Number.isFinite(from) ? { from: new Date(from).toISOString() } : {}),
    ...(Number.isFinite(to) && to <= LAST_INSTANT ? { to: new Date(to).toISOString() } : {}),
  };
}
