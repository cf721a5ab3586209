import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { serviceUnavailable } from '../../../errors.ts';
import { translateError } from '../translate-error.ts';
import { isLive } from '../ttl.ts';
import { type Key, keyString } from '../writes.ts';

type Item = Record<string, unknown>;

/**
 * Whether a key is within DynamoDB's key limits (partition key 2,048 bytes, sort key 1,024 bytes).
 * A key beyond them names no item (no write could have stored it), so a read of it is answered
 * "absent" without a call: DynamoDB would refuse it with a ValidationException, a 500 for what a
 * client sent. Use cases validate their ids first; this is the floor under all of them.
 */
export function isStorableKey(key: Key): boolean {
  const fits = (s: string, limit: number) => s.length * 3 <= limit || Buffer.byteLength(s) <= limit;
  return fits(key.PK, 2048) && fits(key.SK, 1024);
}

/**
 * A consistent GetItem; an item past its `ttl` is absent (DynamoDB deletes it up to days later).
 * Consistent because the management API reads its own writes (create then authorize).
 */
export async function getItem(db: DynamoDBDocumentClient, tableName: string, key: Key, now: Date): Promise<Item | undefined> {
  if (!isStorableKey(key)) return undefined;
  try {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }));
    return Item && isLive(Item, now) ? Item : undefined;
  } catch (err) {
    return translateError(err);
  }
}

/**
 * Consistent BatchGetItem of up to any number of keys (100 per call, unprocessed keys retried),
 * returned by key string. Live items only.
 */
export async function getItems(db: DynamoDBDocumentClient, tableName: string, keys: readonly Key[], now: Date): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const unique = [...new Map(keys.filter(isStorableKey).map((k) => [keyString(k), { PK: k.PK, SK: k.SK }])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] = unique.slice(i, i + 100);
    for (let round = 0; pending.length > 0; round++) {
      if (round > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** round)));
      // DynamoDB returns unprocessed keys when throttled: after the backoff, that is a 503.
      if (round > 8) throw serviceUnavailable({ detail: 'BatchGetItem kept returning unprocessed keys' });
      try {
        const out = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
        for (const item of out.Responses?.[tableName] ?? []) {
          if (isLive(item, now)) found.set(keyString(item as unknown as Key), item);
        }
        pending = (out.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
      } catch (err) {
        return translateError(err);
      }
    }
  }
  return found;
}
