import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { serviceUnavailable } from '../../errors.ts';
import { translateError } from './translate-error.ts';
import type { Key } from './writes.ts';

/** DynamoDB's limit of requests per BatchWriteItem. */
export const MAX_BATCH_WRITE = 25;

/**
 * Deletes items by key, 25 per BatchWriteItem, re-sending unprocessed keys with backoff (DynamoDB
 * hands them back when throttled). Not a transaction: for items that are dead once something else
 * is gone (a deleted user's refresh tokens), where a partial run is harmless and a re-run finishes it.
 */
export async function batchDelete(db: DynamoDBDocumentClient, tableName: string, keys: readonly Key[]): Promise<void> {
  for (let i = 0; i < keys.length; i += MAX_BATCH_WRITE) {
    let pending = keys.slice(i, i + MAX_BATCH_WRITE).map((k) => ({ DeleteRequest: { Key: { PK: k.PK, SK: k.SK } } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
      if (round > 8) throw serviceUnavailable({ detail: 'BatchWriteItem kept returning unprocessed items' });
      try {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      } catch (err) {
        return translateError(err);
      }
    }
  }
}
