import type { EventRecord } from '../records/event-record.ts';
import { eventEntry } from './event-entry.ts';
import { type EventEntry, type EventPublisher, MAX_ENTRIES_PER_CALL } from './event-publisher.ts';

/** A DynamoDB stream record as the forwarder reads it (Lambda's event and DynamoDB Streams' GetRecords alike). */
export interface StreamRecord {
  readonly eventName?: string | undefined;
  readonly dynamodb?: { readonly SequenceNumber?: string | undefined; readonly NewImage?: Readonly<Record<string, unknown>> | undefined };
}

/** What the forwarder counts (shared/observability/service-metrics.ts). */
export type ForwarderMetric = 'EventsDeliveryFailed' | 'SignInsFailed';

/** An event that was not delivered after the retry: ids and the publisher's code only, never the record. */
export interface Undelivered {
  readonly id: string;
  readonly type: string;
  readonly tenant_id: string;
  readonly errorCode: string;
}

export interface ForwardDeps {
  readonly publisher: EventPublisher;
  /** The event a stream record's new image holds, or undefined when the item is not an event. */
  eventOf(newImage: Readonly<Record<string, unknown>>): EventRecord | undefined;
  /** The entries' `Source` (`eventSource(stage)`). */
  readonly source: string;
  readonly metrics: { count(name: ForwarderMetric, dimension?: readonly [string, string]): void };
  /** Told once per call about what is still undelivered after the retry (a log line). */
  undelivered(events: readonly Undelivered[]): void;
}

/** Lambda's partial batch response (`ReportBatchItemFailures`): the stream records to deliver again. */
export interface ForwardResult {
  batchItemFailures: { itemIdentifier: string }[];
}

interface Pending {
  readonly sequenceNumber: string;
  readonly event: EventRecord;
  readonly entry: EventEntry;
}

type Failed = Pending & { readonly errorCode: string };

/**
 * Forwards the events among a batch of table stream records to the publisher (docs/events.md
 * "Streaming: the EventBridge bus"). Only inserted event items count: other items, updates and TTL
 * deletions are skipped (in AWS the event source mapping's filter already drops them); an event item
 * that cannot be read is counted in `EventsDeliveryFailed`, logged by its sequence number, and skipped. Entries go
 * out 10 per call; those the publisher refuses (or all of a call that throws) are tried once more,
 * and what still fails is counted in `EventsDeliveryFailed` and returned as batch item failures,
 * so that Lambda delivers those records again: delivery is at least once, and consumers dedupe by
 * `id`. Every `login.failed` is counted in `SignInsFailed` by tenant, here rather than on the
 * sign-in's own path.
 */
export async function forwardEvents(records: readonly StreamRecord[], deps: ForwardDeps): Promise<ForwardResult> {
  const pending: Pending[] = [];
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    const sequenceNumber = record.dynamodb?.SequenceNumber;
    if (record.eventName !== 'INSERT' || !image || !sequenceNumber) continue;
    let event: EventRecord | undefined;
    try {
      event = deps.eventOf(image);
    } catch (err) {
      // A record no retry can read would block its shard: counted and logged, then passed over.
      deps.metrics.count('EventsDeliveryFailed');
      deps.undelivered([{ id: sequenceNumber, type: 'unreadable', tenant_id: '', errorCode: (err as Error).name || 'Unreadable' }]);
      continue;
    }
    if (!event) continue;
    if (event.type === 'login.failed') deps.metrics.count('SignInsFailed', ['tenant_id', event.tenant_id]);
    pending.push({ sequenceNumber, event, entry: eventEntry(event, deps.source) });
  }
  let failed = await deliver(pending, deps.publisher);
  if (failed.length > 0) failed = await deliver(failed, deps.publisher);
  if (failed.length === 0) return { batchItemFailures: [] };
  for (const _ of failed) deps.metrics.count('EventsDeliveryFailed');
  deps.undelivered(failed.map((f) => ({ id: f.event.id, type: f.event.type, tenant_id: f.event.tenant_id, errorCode: f.errorCode })));
  return { batchItemFailures: failed.map((f) => ({ itemIdentifier: f.sequenceNumber })) };
}

/** Publishes in calls of MAX_ENTRIES_PER_CALL, in stream order; returns what was not delivered. */
async function deliver(items: readonly Pending[], publisher: EventPublisher): Promise<Failed[]> {
  const failed: Failed[] = [];
  for (let i = 0; i < items.length; i += MAX_ENTRIES_PER_CALL) {
    const chunk = items.slice(i, i + MAX_ENTRIES_PER_CALL);
    try {
      const outcomes = await publisher.publish(chunk.map((p) => p.entry));
      chunk.forEach((p, j) => {
        const outcome = outcomes[j];
        // A missing outcome is not a delivery: only an explicit `ok` is.
        if (!outcome?.ok) failed.push({ ...p, errorCode: outcome && !outcome.ok ? outcome.errorCode : 'NoOutcome' });
      });
    } catch (err) {
      const errorCode = (err as { name?: string }).name ?? 'PublishFailed';
      for (const p of chunk) failed.push({ ...p, errorCode });
    }
  }
  return failed;
}
