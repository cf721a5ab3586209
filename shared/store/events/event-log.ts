import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventLog } from '../../ports/event-log.ts';
import type { NewEvent } from '../../records/event-record.ts';
import { putNewItem } from '../core/put-new-item.ts';
import { eventItem } from './event-items.ts';

/**
 * The store's `EventLog` (shared/ports/event-log.ts). `record` is the one separate write a flow
 * with nothing to fold into may make: the SDK's retries apply (the stage's DynamoDB budget), and a
 * write that still fails goes to `notRecorded` (a log line with ids and a metric), never to the caller.
 */
export function eventLog(
  db: DynamoDBDocumentClient,
  tableName: string,
  retentionDays: number,
  notRecorded: (event: NewEvent, err: unknown) => void,
): EventLog {
  return {
    fold: (event) => ({ item: eventItem(event, retentionDays) }),
    async record(event) {
      try {
        await putNewItem(db, tableName, eventItem(event, retentionDays));
      } catch (err) {
        notRecorded(event, err);
      }
    },
  };
}
