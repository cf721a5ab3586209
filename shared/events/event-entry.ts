import { type EventRecord, MAX_USER_AGENT } from '../records/event-record.ts';
import { type EventEntry, entrySize, MAX_BYTES_PER_CALL, MAX_ENTRIES_PER_CALL } from './event-publisher.ts';

/**
 * The most one entry may take: a tenth of a call's 256 KB, so any 10 entries fit in one call and
 * batching never has to weigh them. A record the service wrote is a few KB at most (the user agent
 * is cut to MAX_USER_AGENT characters when the event is made); this bound is for an item something
 * else wrote to the table.
 */
export const MAX_ENTRY_BYTES = Math.floor(MAX_BYTES_PER_CALL / MAX_ENTRIES_PER_CALL);

/** The longest string member kept when an oversized record is cut to its identity. */
const MAX_MEMBER = 256;

/** The source of a stage's events on its bus. */
export const eventSource = (stage: string) => `identity-service.${stage}`;

/**
 * A record as a bus entry: the detail-type is the event's type, the detail is the record itself
 * (docs/events.md "Streaming: the EventBridge bus"). A record too large for MAX_ENTRY_BYTES loses
 * its long user agent first, then its `details` and `changed_fields`, and last everything but
 * its identity, each step marked with `truncated: true`, so that it is still delivered.
 */
export function eventEntry(record: EventRecord, source: string): EventEntry {
  const entry = (detail: object): EventEntry => ({ source, detailType: record.type, detail: JSON.stringify(detail) });
  const full = entry(record);
  if (entrySize(full) <= MAX_ENTRY_BYTES) return full;
  const { details: _details, changed_fields: _fields, ...rest } = record;
  const cut = { ...rest, ...(record.user_agent ? { user_agent: record.user_agent.slice(0, MAX_USER_AGENT) } : {}), truncated: true };
  const shorter = entry(cut);
  if (entrySize(shorter) <= MAX_ENTRY_BYTES) return shorter;
  const short = (s: unknown) => (typeof s === 'string' ? s.slice(0, MAX_MEMBER) : undefined);
  return entry({
    id: short(record.id),
    type: short(record.type),
    tenant_id: short(record.tenant_id),
    occurred_at: short(record.occurred_at),
    ...(record.client_id ? { client_id: short(record.client_id) } : {}),
    ...(record.user_id ? { user_id: short(record.user_id) } : {}),
    ...(record.request_id ? { request_id: short(record.request_id) } : {}),
    truncated: true,
  });
}
