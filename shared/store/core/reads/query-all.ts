import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { translateError } from '../translate-error.ts';

type Item = Record<string, unknown>;

export interface Page {
  items: Item[];
  /** Pass back as `exclusiveStartKey` for the next page; absent on the last page. */
  lastEvaluatedKey?: Record<string, unknown>;
}

/** One Query page, errors translated at the boundary. */
export async function queryPage(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Page> {
  try {
    const out = await db.send(new QueryCommand(input));
    return { items: (out.Items ?? []) as Item[], ...(out.LastEvaluatedKey ? { lastEvaluatedKey: out.LastEvaluatedKey } : {}) };
  } catch (err) {
    return translateError(err);
  }
}

/** Every item of a Query, following `LastEvaluatedKey` (a result is paged at 1 MB). */
export async function queryAll(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPage(db, { ...input, ...(start ? { ExclusiveStartKey: start } : {}) });
    items.push(...page.items);
    start = page.lastEvaluatedKey;
  } while (start);
  return items;
}

/** A partition's items whose SK starts with `prefix` (consistent: the base table allows it). */
export function queryPrefix(db: DynamoDBDocumentClient, tableName: string, pk: string, prefix: string): Promise<Item[]> {
  return queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK' },
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    ConsistentRead: true,
  });
}

/** Every item of a GSI2 partition (eventually consistent: indexes allow nothing else). */
export function queryGsi2(db: DynamoDBDocumentClient, tableName: string, gsi2pk: string): Promise<Item[]> {
  return queryAll(db, {
    TableName: tableName,
    IndexName: 'GSI2',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'GSI2PK' },
    ExpressionAttributeValues: { ':pk': gsi2pk },
  });
}
