import {
  DeleteCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { eventPuts } from './event-items.ts';
import { takePendingEvent } from './pending-event.ts';

/** One single-item write of a flow, as its command input. */
export type SingleWrite = { Update: UpdateCommandInput } | { Put: PutCommandInput } | { Delete: DeleteCommandInput };

/**
 * Sends a flow's single-item write with its events folded in (docs/events.md "Recording"): with no
 * event it is the plain command, as before; with events it is one TransactWriteItems of the write
 * and one Put per event, so each event lands if and only if the write does, and the flow makes no
 * DynamoDB call it did not make already. A transaction returns no attributes: a caller that needs
 * `ReturnValues` must not pass events.
 *
 * A management write's pending event (pending-event.ts) is folded the same way.
 *
 * A failed condition of the write surfaces as `ConditionalCheckFailedException`, the error the
 * plain command throws, so callers keep one check for both shapes.
 */
export async function sendWithEvents(
  db: DynamoDBDocumentClient,
  write: SingleWrite,
  events: readonly FoldedEvent[] | undefined,
): Promise<Record<string, unknown> | undefined> {
  // A management write's pending event rides here too (pending-event.ts).
  const pending = takePendingEvent('Put' in write ? [write.Put.Item as Record<string, unknown>] : []);
  const result = await send(db, write, pending ? [...(events ?? []), pending.event] : events);
  pending?.committed();
  return result;
}

async function send(
  db: DynamoDBDocumentClient,
  write: SingleWrite,
  events: readonly FoldedEvent[] | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (!events?.length) {
    if ('Update' in write) return (await db.send(new UpdateCommand(write.Update))).Attributes;
    if ('Put' in write) return (await db.send(new PutCommand(write.Put))).Attributes;
    return (await db.send(new DeleteCommand(write.Delete))).Attributes;
  }
  const action = withoutReturnValues(write);
  const tableName = 'Update' in action ? action.Update.TableName : 'Put' in action ? action.Put.TableName : action.Delete.TableName;
  try {
    await db.send(new TransactWriteCommand({ TransactItems: [action, ...eventPuts(tableName!, events)] }));
    return undefined;
  } catch (err) {
    const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
    if (e.name === 'TransactionCanceledException' && e.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') {
      throw Object.assign(new Error('The conditional request failed', { cause: err }), { name: 'ConditionalCheckFailedException' });
    }
    if (e.name === 'TransactionCanceledException' && e.CancellationReasons?.some((r) => r.Code === 'TransactionConflict')) {
      throw Object.assign(new Error('Transaction is ongoing for the item', { cause: err }), { name: 'TransactionConflictException' });
    }
    throw err;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the three command inputs differ only in the members dropped here.
function withoutReturnValues(write: SingleWrite): any {
  const strip = ({ ReturnValues: _r, ReturnConsumedCapacity: _c, ReturnItemCollectionMetrics: _m, ...rest }: Record<string, unknown>) =>
    rest;
  if ('Update' in write) return { Update: strip(write.Update as Record<string, unknown>) };
  if ('Put' in write) return { Put: strip(write.Put as Record<string, unknown>) };
  return { Delete: strip(write.Delete as Record<string, unknown>) };
}
