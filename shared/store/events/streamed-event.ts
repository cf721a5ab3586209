import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EventRecord } from '../../records/event-record.ts';
import { EVENT_ITEM_TYPE } from '../core/table-definition.ts';
import { eventOfItem } from './event-items.ts';

/**
 * The event a table stream record's new image holds (docs/events.md "Streaming: the EventBridge
 * bus"), or undefined for any other item: the stream carries every write to the table, and only an
 * event item is unmarshalled. An attribute value with no member is left out: the DynamoDB Streams
 * client reads an empty map that way (locally), and no event member is worth failing the record for.
 */
export function eventOfStreamImage(newImage: Readonly<Record<string, unknown>>): EventRecord | undefined {
  if ((newImage.type as { S?: unknown } | undefined)?.S !== EVENT_ITEM_TYPE) return undefined;
  const present = Object.entries(newImage).filter(
    ([, v]) => typeof v === 'object' && v !== null && Object.values(v).some((m) => m !== undefined),
  );
  return eventOfItem(unmarshall(Object.fromEntries(present) as Record<string, AttributeValue>));
}
