import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventRecord } from '../../records/event-record.ts';
import { keys } from '../core/table-keys.ts';
import { isLive } from '../core/ttl.ts';
import { eventOfItem } from './event-items.ts';

/**
 * Items one request may READ (DynamoDB's ScannedCount, what a Query bills), whatever its filters
 * (docs/events.md "Query API"). `type` and `client_id` are FilterExpressions: DynamoDB reads the
 * items they drop. Without a bound a rare filter over a busy tenant's retention would read the
 * whole partition in one request; with it, a page may come back short (even empty) with a cursor
 * that resumes where the reading stopped.
 */
export const EVENT_READ_BUDGET = 1_000;

/** A filter on a stored event attribute: equal to the value, or absent when `null`. */
export interface EventFilter {
  readonly attribute: 'type' | 'client_id' | 'user_id';
  readonly value: string | null;
}

/** Where a DynamoDB Query resumes: the key attributes of the last item read. */
export type EventStartKey = Readonly<Record<string, string | number>>;

export interface EventQuery {
  readonly tenantId: string;
  /** One user's events (GSI2); each item's tenant is still checked against `tenantId`. */
  readonly userId?: string;
  readonly filters: readonly EventFilter[];
  /** `occurred_at >= from`, ISO 8601 UTC with milliseconds (the sort key's prefix). */
  readonly from?: string;
  /** `occurred_at < to`, same form. */
  readonly to?: string;
  /** Matching events wanted (the page size). */
  readonly limit: number;
  readonly startKey?: EventStartKey;
  /** Items to read at most; default EVENT_READ_BUDGET. */
  readonly readBudget?: number;
}

export interface EventPage {
  /** Newest first, at most `limit`. */
  readonly items: EventRecord[];
  /** Present when more may follow: the Query resumes after it. */
  readonly nextKey?: EventStartKey;
  /** Items DynamoDB read for this page (its ScannedCount summed). */
  readonly read: number;
}

/** The stored name of a filterable attribute: the event's own type is `event_type` (event-items.ts). */
const STORED: Record<EventFilter['attribute'], string> = { type: 'event_type', client_id: 'client_id', user_id: 'user_id' };

/**
 * Reads of the security event log (docs/data-model.md "Events"): a tenant's partition
 * `EVENTS#{tenant}` or a user's GSI2 partition `USER#{id}#EVENTS`, newest first
 * (ScanIndexForward false), the date range as a key condition on the sort key
 * `{occurred_at}#{id}`. Expired items (ttl passed, not yet deleted by DynamoDB) are never returned.
 */
export function eventsRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date) {
  return {
    async list(query: EventQuery): Promise<EventPage> {
      const byUser = query.userId !== undefined;
      const budget = query.readBudget ?? EVENT_READ_BUDGET;
      const at = now();
      const input = queryInput(tableName, query, at);
      const found: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined = query.startKey;
      let read = 0;
      // The first Query reads one more than a page (it then knows whether more follow); later ones,
      // needed only when filters drop items, read twice as many each time, up to the budget.
      let chunk = query.limit + 1;
      for (;;) {
        const res = await db.send(
          new QueryCommand({ ...input, Limit: Math.min(chunk, budget - read), ...(start ? { ExclusiveStartKey: start } : {}) }),
        );
        read += res.ScannedCount ?? 0;
        // The FilterExpression already holds these; checked again so that no other tenant's event
        // and no expired one can reach a caller even if an expression were wrong.
        for (const item of res.Items ?? []) if (item.tenant_id === query.tenantId && isLive(item, at)) found.push(item);
        start = res.LastEvaluatedKey;
        if (found.length > query.limit) {
          const last = found[query.limit - 1]!;
          return { items: found.slice(0, query.limit).map(eventView), nextKey: keyOf(last, byUser), read };
        }
        if (!start) return { items: found.map(eventView), read };
        if (read >= budget) return { items: found.map(eventView), nextKey: start as EventStartKey, read };
        chunk *= 2;
      }
    },
  };
}

export type EventsRepository = ReturnType<typeof eventsRepository>;

function queryInput(tableName: string, query: EventQuery, at: Date) {
  const byUser = query.userId !== undefined;
  const [pk, sk] = byUser ? ['GSI2PK', 'GSI2SK'] : ['PK', 'SK'];
  const names: Record<string, string> = { '#pk': pk, '#ttl': 'ttl', '#tenant': 'tenant_id' };
  const values: Record<string, unknown> = {
    ':pk': byUser ? keys.userEvents(query.userId!) : keys.tenantEvents(query.tenantId),
    ':now': Math.floor(at.getTime() / 1000),
    ':tenant': query.tenantId,
  };
  let keyCondition = '#pk = :pk';
  if (query.from !== undefined || query.to !== undefined) {
    names['#sk'] = sk;
    // SK is `{occurred_at}#{id}` with a fixed-width timestamp: every SK of an instant t starts with
    // t's text and sorts after it, so `SK >= from` keeps [from, ...) and `SK < to` (or BETWEEN
    // from AND to, whose upper end `to` alone is never an SK) stops before `to`.
    if (query.from !== undefined) values[':from'] = query.from;
    if (query.to !== undefined) values[':to'] = query.to;
    keyCondition +=
      query.from !== undefined && query.to !== undefined
        ? ' AND #sk BETWEEN :from AND :to'
        : query.from !== undefined
          ? ' AND #sk >= :from'
          : ' AND #sk < :to';
  }
  // A tenant's partition holds only its events; the tenant check matters on a user's GSI2 partition.
  const filters = ['#ttl > :now', '#tenant = :tenant'];
  query.filters.forEach((f, i) => {
    names[`#f${i}`] = STORED[f.attribute];
    if (f.value === null) filters.push(`attribute_not_exists(#f${i})`);
    else {
      values[`:f${i}`] = f.value;
      filters.push(`#f${i} = :f${i}`);
    }
  });
  return {
    TableName: tableName,
    ...(byUser ? { IndexName: 'GSI2' } : {}),
    KeyConditionExpression: keyCondition,
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
}

/** The key a Query resumes after: the table's, plus the index's on GSI2. */
function keyOf(item: Record<string, unknown>, byUser: boolean): EventStartKey {
  const names = byUser ? ['PK', 'SK', 'GSI2PK', 'GSI2SK'] : ['PK', 'SK'];
  return Object.fromEntries(names.map((n) => [n, item[n] as string]));
}

/** The event as listed: the record without the store's expiry. */
function eventView(item: Record<string, unknown>): EventRecord {
  const { ttl: _ttl, ...record } = eventOfItem(item) as EventRecord & { ttl?: number };
  return record;
}
