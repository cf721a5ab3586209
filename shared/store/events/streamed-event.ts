import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EventRecord } from '../../records/event-record.ts';
import { eventOfItem, isEventItem } from './event-items.ts';

/**
 * The event a table stream record's new image holds (docs/events.md "Streaming: the EventBridge
 * bus"), or undefined for any other item: the stream carries every write to the table.
 */
export function eventOfStreamImage(newImage: Readonly<Record<string, unknown>>): EventRecord | undefined {
  const item = unmarshall(newImage as Record<string, AttributeValue>);
  return isEventItem(item) ? eventOfItem(item) : undefined;
}
