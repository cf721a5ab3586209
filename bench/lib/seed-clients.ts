import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';

type Item = Record<string, unknown>;

/** The client item to copy: one the repository wrote (data-model.md §2: `CLIENT#{c}` / `CLIENT`). */
export async function readClientItem(db: DynamoDBDocumentClient, tableName: string, clientId: string): Promise<Item> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.client(clientId), ConsistentRead: true }));
  if (!Item) throw new Error(`no client item for ${clientId}`);
  return Item;
}

export async function clientCount(db: DynamoDBDocumentClient, tableName: string, tenantId: string): Promise<number> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: keys.collectionCounter(tenantId, 'CLIENTS'), ConsistentRead: true }),
  );
  return typeof Item?.count === 'number' ? Item.count : 0;
}

/**
 * Adds `n` clients to the template's tenant fast: copies of an item the client repository wrote
 * (so the shape is exactly the stored one: keys, GSI1 collection keys, `type`, `schema_version`,
 * `version`, aggregations, the sealed secret), each with a new UUIDv7 id (creation order = GSI1SK
 * order, as the repository does), a name and audit times, written with BatchWriteItem (25 per call,
 * 8 calls in flight), then the tenant's `COUNT#CLIENTS` counter raised by `n` with the same `ADD`
 * the create transaction uses. Creating 10,000 clients through the API would take minutes; this
 * takes seconds and leaves the table as 10,000 creates would (bar the audit `created_by`).
 */
export async function seedClients(db: DynamoDBDocumentClient, tableName: string, template: Item, n: number): Promise<void> {
  if (n <= 0) return;
  const tenantId = String(template.tenant_id);
  const base = Date.now();
  const items: Item[] = [];
  for (let i = 0; i < n; i++) {
    const id = uuidv7();
    const at = new Date(base + i).toISOString();
    const item: Item = {
      ...structuredClone(template),
      ...keys.client(id),
      id,
      client_name: `bench client ${String(i).padStart(5, '0')}`,
      client_description: 'seeded by npm run bench',
      is_default: false,
      created_at: at,
      updated_at: at,
    };
    // GSI1 keys as the repository writes them (collection by tenant, sorted by id).
    if ('GSI1PK' in template) {
      item.GSI1PK = keys.collection(tenantId, 'CLIENTS');
      item.GSI1SK = id;
    }
    if ('client_id' in template) item.client_id = id;
    items.push(item);
  }
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      let pending: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 10) throw new Error('BatchWriteItem kept returning unprocessed items');
        if (attempt > 0) await new Promise((r) => setTimeout(r, 20 * attempt));
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
        pending = (out.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.collectionCounter(tenantId, 'CLIENTS'),
      UpdateExpression: 'SET #t = if_not_exists(#t, :t), #sv = if_not_exists(#sv, :sv) ADD #n :n',
      ExpressionAttributeNames: { '#t': 'type', '#sv': 'schema_version', '#n': 'count' },
      ExpressionAttributeValues: { ':t': 'Counter', ':sv': 1, ':n': n },
    }),
  );
}
