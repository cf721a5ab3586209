import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventRecord, EventType } from '#shared/records/event-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { eventOfItem } from '#shared/store/events/event-items.ts';

/**
 * The events stored for a tenant, oldest first, read straight from the table (one consistent
 * Query of its partition), with each item's `ttl`: what a test of a flow asserts was written.
 */
export function storedEvents(runtime: Runtime, tenantId: string, type?: EventType): Promise<(EventRecord & { ttl: number })[]> {
  return storedEventsOf(runtime.db, runtime.config.tableName, tenantId, type);
}

/** The same on a table of a store test. */
export async function storedEventsOf(
  db: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  type?: EventType,
): Promise<(EventRecord & { ttl: number })[]> {
  const out: (EventRecord & { ttl: number })[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.tenantEvents(tenantId) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) out.push({ ...eventOfItem(item), ttl: item.ttl as number });
    start = page.LastEvaluatedKey;
  } while (start);
  return type ? out.filter((e) => e.type === type) : out;
}
