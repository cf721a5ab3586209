import type { FoldedEvent } from '../../ports/event-log.ts';
import type { EventRecord, NewEvent } from '../../records/event-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { keys } from '../core/table-keys.ts';
import { uuidv7 } from '../core/uuidv7.ts';

/**
 * The stored shape of an event (docs/data-model.md "Events"): its record, keys and `ttl`. Every
 * item's `type` is its entity type, so the event's own type is stored as `event_type`.
 */
export function eventItem(event: NewEvent, retentionDays: number): Record<string, unknown> {
  const at = new Date(event.occurred_at);
  const id = uuidv7(at.getTime());
  const key = keys.event(event.tenant_id, event.occurred_at, id);
  const { type, ...rest } = event;
  return {
    ...key,
    ...(event.user_id ? { GSI2PK: keys.userEvents(event.user_id), GSI2SK: key.SK } : {}),
    ...entity('Event'),
    id,
    event_type: type,
    ...rest,
    ttl: Math.floor(at.getTime() / 1000) + retentionDays * 86_400,
  };
}

/** The record of a stored event item (a read, or a stream record's new image). */
export function eventOfItem(item: Record<string, unknown>): EventRecord {
  const { event_type, ...rest } = toRecord<Record<string, unknown>>(item);
  return { type: event_type, ...rest } as unknown as EventRecord;
}

/** Is this item an event (a stream record's new image carries every kind of item)? */
export const isEventItem = (item: Record<string, unknown>): boolean => item.type === 'Event';

/** The Put of each folded event, for a TransactWriteItems the flow already sends. */
export function eventPuts(tableName: string, events: readonly FoldedEvent[] | undefined) {
  return (events ?? []).map((e) => ({
    Put: { TableName: tableName, Item: { ...e.item }, ConditionExpression: 'attribute_not_exists(PK)' },
  }));
}
