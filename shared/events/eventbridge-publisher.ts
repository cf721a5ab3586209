import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { EventPublisher } from './event-publisher.ts';

/**
 * The stage's EventBridge bus (`PutEvents`). PutEvents answers 200 even when some entries fail:
 * each result entry has an `EventId` or an `ErrorCode`, in the order of the request's entries
 * (EventBridge API reference, PutEvents "Response Elements").
 */
export function eventBridgePublisher(client: EventBridgeClient, eventBusName: string): EventPublisher {
  return {
    async publish(entries) {
      const out = await client.send(
        new PutEventsCommand({
          Entries: entries.map((e) => ({ EventBusName: eventBusName, Source: e.source, DetailType: e.detailType, Detail: e.detail })),
        }),
      );
      return entries.map((_, i) => {
        const r = out.Entries?.[i];
        return r?.EventId && !r.ErrorCode ? { ok: true } : { ok: false, errorCode: r?.ErrorCode ?? 'NoResultEntry' };
      });
    },
  };
}
