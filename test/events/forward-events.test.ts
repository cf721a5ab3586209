import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { eventEntry, eventSource, MAX_ENTRY_BYTES } from '#shared/events/event-entry.ts';
import { type EntryOutcome, type EventEntry, entrySize, MAX_BYTES_PER_CALL } from '#shared/events/event-publisher.ts';
import { type ForwardDeps, forwardEvents, type StreamRecord, type Undelivered } from '#shared/events/forward-events.ts';
import { type EventRecord, MAX_USER_AGENT, type NewEvent, newEvent } from '#shared/records/event-record.ts';
import { eventItem } from '#shared/store/events/event-items.ts';
import { eventOfStreamImage } from '#shared/store/events/streamed-event.ts';

const SOURCE = eventSource('dev');
const AT = new Date('2026-03-01T10:00:00.000Z');
let sequence = 1000;

/** A stream record of a stored item, as Lambda (and DynamoDB Streams' GetRecords) hand it over. */
function inserted(item: Record<string, unknown>, eventName = 'INSERT'): StreamRecord {
  return { eventName, dynamodb: { SequenceNumber: String(sequence++), NewImage: marshall(item, { removeUndefinedValues: true }) } };
}

function event(i: number, fields: Partial<NewEvent> = {}): NewEvent {
  return {
    ...newEvent(
      'login.succeeded',
      new Date(AT.getTime() + i),
      { request_id: `req-${i}`, source_ip: '203.0.113.9', user_agent: 'curl/8' },
      {
        tenant_id: 'tenant-a',
        client_id: 'client-1',
        user_id: `user-${i}`,
      },
    ),
    ...fields,
  };
}

/** A publisher that records every call and answers each entry with `outcome(entry, call)`. */
function fakePublisher(outcome: (entry: EventEntry, call: number) => EntryOutcome | 'throw' = () => ({ ok: true })) {
  const calls: EventEntry[][] = [];
  return {
    calls,
    async publish(entries: readonly EventEntry[]) {
      calls.push([...entries]);
      const outcomes = entries.map((e) => outcome(e, calls.length));
      if (outcomes.includes('throw')) throw Object.assign(new Error('connect ETIMEDOUT'), { name: 'TimeoutError' });
      return outcomes as EntryOutcome[];
    },
  };
}

function deps(publisher: ForwardDeps['publisher']) {
  const counted: [string, readonly [string, string] | undefined][] = [];
  const undelivered: Undelivered[][] = [];
  const d: ForwardDeps = {
    publisher,
    eventOf: eventOfStreamImage,
    source: SOURCE,
    metrics: { count: (name, dimension) => counted.push([name, dimension]) },
    undelivered: (events) => undelivered.push([...events]),
  };
  return { d, counted, undelivered };
}

const detailOf = (entry: EventEntry) => JSON.parse(entry.detail) as EventRecord;

describe('forwardEvents: table stream records to the bus (docs/events.md "Streaming: the EventBridge bus")', () => {
  it('25 events go out in 3 calls of 10, 10 and 5, in stream order, each detail the stored record', async () => {
    const items = Array.from({ length: 25 }, (_, i) => eventItem(event(i), 30));
    const publisher = fakePublisher();
    const { d, counted, undelivered } = deps(publisher);
    const result = await forwardEvents(
      items.map((item) => inserted(item)),
      d,
    );
    expect(result).toEqual({ batchItemFailures: [] });
    expect(publisher.calls.map((c) => c.length)).toEqual([10, 10, 5]);
    const sent = publisher.calls.flat();
    expect(sent.map((e) => detailOf(e).id)).toEqual(items.map((item) => item.id));
    for (const [i, entry] of sent.entries()) {
      expect(entry.source).toBe('identity-service.dev');
      expect(entry.detailType).toBe('login.succeeded');
      // The record as the query API lists it: no keys, no entity metadata, no ttl.
      expect(detailOf(entry)).toEqual({
        id: items[i]!.id,
        type: 'login.succeeded',
        occurred_at: new Date(AT.getTime() + i).toISOString(),
        tenant_id: 'tenant-a',
        client_id: 'client-1',
        user_id: `user-${i}`,
        request_id: `req-${i}`,
        source_ip: '203.0.113.9',
        user_agent: 'curl/8',
      });
    }
    expect(counted).toEqual([]);
    expect(undelivered).toEqual([]);
  });

  it("the detail-type is each event's own type", async () => {
    const types = ['login.failed', 'management.updated', 'refresh_token.reused'] as const;
    const publisher = fakePublisher();
    const { d } = deps(publisher);
    await forwardEvents(
      types.map((type, i) => inserted(eventItem(event(i, { type }), 30))),
      d,
    );
    expect(publisher.calls.flat().map((e) => [e.detailType, detailOf(e).type])).toEqual(types.map((t) => [t, t]));
  });

  it('skips what is not a new event: other items, updates, deletions, records without an image', async () => {
    const publisher = fakePublisher();
    const { d, counted } = deps(publisher);
    const stored = eventItem(event(1), 30);
    const result = await forwardEvents(
      [
        inserted({ PK: 'USER#u1', SK: 'USER', type: 'User', id: 'u1', email: 'a@example.com' }),
        inserted(stored, 'MODIFY'),
        inserted(stored, 'REMOVE'),
        { eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } },
        { eventName: 'INSERT', dynamodb: { NewImage: marshall(stored) } },
      ],
      d,
    );
    expect(result).toEqual({ batchItemFailures: [] });
    expect(publisher.calls).toEqual([]);
    expect(counted).toEqual([]);
  });

  it('entries the bus refuses are tried once more; delivered then, nothing fails', async () => {
    const items = Array.from({ length: 12 }, (_, i) => eventItem(event(i), 30));
    const refusedOnce = new Set([items[3]!.id, items[11]!.id]);
    const publisher = fakePublisher((entry, call) =>
      call <= 2 && refusedOnce.has(detailOf(entry).id) ? { ok: false, errorCode: 'ThrottlingException' } : { ok: true },
    );
    const { d, counted, undelivered } = deps(publisher);
    const result = await forwardEvents(
      items.map((item) => inserted(item)),
      d,
    );
    expect(result).toEqual({ batchItemFailures: [] });
    expect(publisher.calls.map((c) => c.map((e) => detailOf(e).id))).toEqual([
      items.slice(0, 10).map((i) => i.id),
      items.slice(10).map((i) => i.id),
      [items[3]!.id, items[11]!.id],
    ]);
    expect(counted).toEqual([]);
    expect(undelivered).toEqual([]);
  });

  it('an entry refused twice is a batch item failure (its sequence number), counted in EventsDeliveryFailed, logged by id only', async () => {
    const items = Array.from({ length: 4 }, (_, i) => eventItem(event(i), 30));
    const records = items.map((item) => inserted(item));
    const publisher = fakePublisher((entry) =>
      detailOf(entry).id === items[2]!.id ? { ok: false, errorCode: 'InternalFailure' } : { ok: true },
    );
    const { d, counted, undelivered } = deps(publisher);
    const result = await forwardEvents(records, d);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[2]!.dynamodb!.SequenceNumber }] });
    expect(publisher.calls.map((c) => c.length)).toEqual([4, 1]);
    expect(counted).toEqual([['EventsDeliveryFailed', undefined]]);
    expect(undelivered).toEqual([[{ id: items[2]!.id, type: 'login.succeeded', tenant_id: 'tenant-a', errorCode: 'InternalFailure' }]]);
    expect(JSON.stringify(undelivered)).not.toContain('203.0.113.9');
  });

  it('a call that throws fails all its entries: retried once, then every one is a batch item failure', async () => {
    const records = Array.from({ length: 3 }, (_, i) => inserted(eventItem(event(i), 30)));
    const publisher = fakePublisher(() => 'throw');
    const { d, counted, undelivered } = deps(publisher);
    const result = await forwardEvents(records, d);
    expect(result.batchItemFailures).toEqual(records.map((r) => ({ itemIdentifier: r.dynamodb!.SequenceNumber })));
    expect(publisher.calls.map((c) => c.length)).toEqual([3, 3]);
    expect(counted).toEqual(Array.from({ length: 3 }, () => ['EventsDeliveryFailed', undefined]));
    expect(undelivered[0]!.map((u) => u.errorCode)).toEqual(['TimeoutError', 'TimeoutError', 'TimeoutError']);
  });

  it('an event item that cannot be read is counted and logged by sequence number, not retried; the others go out', async () => {
    const good = eventItem(event(1), 30);
    const bad: StreamRecord = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '77', NewImage: { type: { S: 'Event' }, id: { X: 'y' } } },
    };
    const publisher = fakePublisher();
    const { d, counted, undelivered } = deps(publisher);
    const result = await forwardEvents([bad, inserted(good)], d);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(publisher.calls.flat().map((e) => detailOf(e).id)).toEqual([good.id]);
    expect(counted).toEqual([['EventsDeliveryFailed', undefined]]);
    expect(undelivered).toEqual([[{ id: '77', type: 'unreadable', tenant_id: '', errorCode: 'Error' }]]);
  });

  it('an empty attribute value (how the local streams client reads an empty map) is left out of the record', async () => {
    const item = marshall(eventItem(event(1), 30));
    const publisher = fakePublisher();
    const { d } = deps(publisher);
    await forwardEvents([{ eventName: 'INSERT', dynamodb: { SequenceNumber: '5', NewImage: { ...item, details: {} } } }], d);
    expect(detailOf(publisher.calls[0]![0]!)).toMatchObject({ type: 'login.succeeded', user_id: 'user-1' });
    expect(detailOf(publisher.calls[0]![0]!)).not.toHaveProperty('details');
  });

  it('a publisher answering fewer outcomes than entries has not delivered the rest', async () => {
    const records = Array.from({ length: 2 }, (_, i) => inserted(eventItem(event(i), 30)));
    const { d } = deps({ publish: async (entries) => entries.slice(1).map(() => ({ ok: true as const })) });
    const result = await forwardEvents(records, d);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }]);
  });

  it('counts SignInsFailed by tenant for each login.failed, and nothing for other types', async () => {
    const publisher = fakePublisher();
    const { d, counted } = deps(publisher);
    await forwardEvents(
      [
        inserted(eventItem(event(1, { type: 'login.failed', reason: 'wrong_password' }), 30)),
        inserted(eventItem(event(2, { type: 'login.failed', tenant_id: 'tenant-b', reason: 'unknown_user' }), 30)),
        inserted(eventItem(event(3, { type: 'login.failed', reason: 'locked' }), 30)),
        inserted(eventItem(event(4, { type: 'mfa.failed' }), 30)),
      ],
      d,
    );
    expect(counted).toEqual([
      ['SignInsFailed', ['tenant_id', 'tenant-a']],
      ['SignInsFailed', ['tenant_id', 'tenant-b']],
      ['SignInsFailed', ['tenant_id', 'tenant-a']],
    ]);
  });
});

describe("entry size: under PutEvents' cap, whatever was stored", () => {
  it('an item with a 300 KB user agent (not written by the service) is cut to fit, marked truncated', async () => {
    const huge = eventItem(event(1, { user_agent: 'A'.repeat(300_000), details: { amr: ['pwd'] } }), 30);
    const publisher = fakePublisher();
    const { d } = deps(publisher);
    const result = await forwardEvents([inserted(huge)], d);
    expect(result).toEqual({ batchItemFailures: [] });
    const [entry] = publisher.calls.flat();
    expect(entrySize(entry!)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    const detail = detailOf(entry!) as EventRecord & { truncated?: boolean };
    expect(detail.user_agent).toBe('A'.repeat(MAX_USER_AGENT));
    expect(detail.truncated).toBe(true);
    expect(detail.details).toBeUndefined();
    expect(detail.id).toBe(huge.id);
  });

  it('ten worst-case entries fit in one call', () => {
    const record = { ...(event(1) as EventRecord), id: 'x', target: { type: 'client', id: 'B'.repeat(400_000) } };
    const entry = eventEntry(record, SOURCE);
    expect(entrySize(entry)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
    expect(detailOf(entry)).toEqual({
      id: 'x',
      type: 'login.succeeded',
      tenant_id: 'tenant-a',
      occurred_at: record.occurred_at,
      client_id: 'client-1',
      user_id: 'user-1',
      request_id: 'req-1',
      truncated: true,
    });
    expect(10 * MAX_ENTRY_BYTES).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
  });

  it('a normal record is sent whole', () => {
    const record = { ...(event(1) as EventRecord), id: 'y' };
    expect(JSON.parse(eventEntry(record, SOURCE).detail)).toEqual(record);
  });
});
