import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { StartKey } from '../../../lists/collection-source.ts';
import { TABLE_INDEXES, TABLE_KEYS } from '../table-definition.ts';
import { translateError } from '../translate-error.ts';

type Item = Record<string, unknown>;

/** One partition of the table or of an index, optionally narrowed to a sort-key prefix. */
export interface PartitionQuery {
  /** `GSI1` for collections; absent: the table itself. */
  readonly indexName?: string | undefined;
  /** The partition key's value, e.g. GSI1PK `TENANT#t1#CLIENTS`. */
  readonly partition: string;
  /** `begins_with` on the sort key, e.g. `RESOURCE#` for one kind of link in a record's partition. */
  readonly sortKeyPrefix?: string | undefined;
  /** Reverse key order. */
  readonly descending?: boolean | undefined;
  /** Strongly consistent (table only; GSIs are eventually consistent). */
  readonly consistentRead?: boolean | undefined;
}

export interface QueryPageInput extends PartitionQuery {
  /** Stop after this many items; absent: read to the end of the partition. */
  readonly limit?: number | undefined;
  readonly exclusiveStartKey?: StartKey | undefined;
}

export interface QueryPageResult {
  readonly items: Item[];
  /** Present when the partition may hold more items after the last one returned. */
  readonly lastEvaluatedKey: StartKey | undefined;
}

/**
 * The one Query that pages a collection, so repositories do not each write it. Reads up to
 * `limit` items in key order, following DynamoDB's 1 MB pages until it has them: a Query with
 * `Limit` may return fewer items than asked (1 MB cap), and callers rely on "fewer only at the
 * end". Cost: the items returned (in RCUs by size), nothing more: no FilterExpression is used.
 */
export async function queryPage(db: DynamoDBDocumentClient, tableName: string, input: QueryPageInput): Promise<QueryPageResult> {
  if (input.limit !== undefined && input.limit <= 0) return { items: [], lastEvaluatedKey: input.exclusiveStartKey };
  const items: Item[] = [];
  let start: StartKey | undefined = input.exclusiveStartKey;
  do {
    // DynamoDB's Limit is a 32-bit integer; a bigger request just takes more 1 MB pages.
    const remaining = input.limit === undefined ? undefined : Math.min(input.limit - items.length, 1_000_000);
    const out = await send(db, { ...baseQuery(tableName, input), Limit: remaining, ExclusiveStartKey: start });
    items.push(...((out.Items ?? []) as Item[]));
    start = out.LastEvaluatedKey as StartKey | undefined;
  } while (start && (input.limit === undefined || items.length < input.limit));
  return { items, lastEvaluatedKey: start };
}

/**
 * `Select: 'COUNT'` over the partition: no data comes back, but DynamoDB still reads (and bills)
 * every item, one 1 MB page per request. Prefer a counter item when a list is counted often.
 */
export async function countQuery(db: DynamoDBDocumentClient, tableName: string, input: PartitionQuery): Promise<number> {
  let count = 0;
  let start: StartKey | undefined;
  do {
    const out = await send(db, { ...baseQuery(tableName, input), Select: 'COUNT', ExclusiveStartKey: start });
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey as StartKey | undefined;
  } while (start);
  return count;
}

/** The ExclusiveStartKey that resumes right after `item` in the table or the index. */
export function startKeyOf(item: Item, indexName?: string): StartKey {
  const names: string[] = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];
  if (indexName) {
    const index = indexOf(indexName);
    names.push(index.partitionKey, index.sortKey);
  }
  const key: Record<string, string | number> = {};
  for (const n of names) {
    const v = item[n];
    if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`item lacks key attribute ${n}`);
    key[n] = v;
  }
  return key;
}

function baseQuery(tableName: string, q: PartitionQuery): QueryCommandInput {
  const index = q.indexName ? indexOf(q.indexName) : undefined;
  const pk = index?.partitionKey ?? TABLE_KEYS.partitionKey;
  const sk = index?.sortKey ?? TABLE_KEYS.sortKey;
  const prefix = q.sortKeyPrefix !== undefined && q.sortKeyPrefix !== '';
  return {
    TableName: tableName,
    IndexName: q.indexName,
    KeyConditionExpression: prefix ? '#pk = :pk AND begins_with(#sk, :sk)' : '#pk = :pk',
    ExpressionAttributeNames: prefix ? { '#pk': pk, '#sk': sk } : { '#pk': pk },
    ExpressionAttributeValues: prefix ? { ':pk': q.partition, ':sk': q.sortKeyPrefix } : { ':pk': q.partition },
    ScanIndexForward: !q.descending,
    ConsistentRead: index ? undefined : q.consistentRead,
  };
}

function indexOf(indexName: string) {
  const index = TABLE_INDEXES.find((i) => i.indexName === indexName);
  if (!index) throw new Error(`unknown index ${indexName}`);
  return index;
}

async function send(db: DynamoDBDocumentClient, input: QueryCommandInput) {
  try {
    return await db.send(new QueryCommand(input));
  } catch (err) {
    // Throttling after the SDK's retries becomes a 503 (docs/design.md §3.4).
    return translateError(err);
  }
}
