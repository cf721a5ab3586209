import { randomBytes } from 'node:crypto';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A UUIDv7 (RFC 9562 §5.7) for `ms`, with `seq` in rand_a so ids made in the same millisecond
 * still sort in creation order, as the service's ids do.
 */
export function uuidv7(ms: number, seq = 0): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | ((seq >> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const TYPES = ['spa', 'native', 'm2m'] as const;
const BASE = Date.parse('2025-03-01T00:00:00.000Z');

/**
 * `n` client records in creation (= id) order. Records 10 and 11 share a `created_at` (one
 * millisecond) so tie-breaking by id is exercised; names mix case so string order is too.
 */
export function makeClients(n: number, tenant = '0197a000-0000-7000-8000-000000000001'): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const ms = BASE + (i === 11 ? 10 : i) * 60_000;
    const name = `${i % 5 === 0 ? 'alpha' : i % 5 === 1 ? 'Beta' : i % 5 === 2 ? 'gamma' : i % 5 === 3 ? 'Delta' : 'epsilon'} ${String(i).padStart(3, '0')}`;
    return {
      id: uuidv7(ms, i),
      tenant_id: tenant,
      client_type: TYPES[i % 3],
      client_name: name,
      client_secret: `secret-${i}`,
      client_description: i % 7 === 0 ? undefined : `Client number ${i}`,
      client_metadata: { grant_types: ['client_credentials'] },
      is_public: i % 2 === 0,
      is_first_party: i % 4 === 0,
      is_global: true,
      aggregations: { resources: i % 3, permissions: 0 },
      created_at: new Date(ms).toISOString(),
      updated_at: new Date(ms + 1000).toISOString(),
    };
  });
}

/** Stores records as a tenant's collection in GSI1 (GSI1PK = partition, GSI1SK = id). */
export async function putCollection(
  db: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
  records: Record<string, unknown>[],
): Promise<void> {
  const items = records.map((r) => ({ PK: `CLIENT#${String(r.id)}`, SK: 'CLIENT', GSI1PK: partition, GSI1SK: r.id, type: 'Client', ...r }));
  for (let i = 0; i < items.length; i += 25) {
    let requests: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
      [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    while (requests && Object.keys(requests).length > 0) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: requests }));
      requests = out.UnprocessedItems as typeof requests;
    }
  }
}

export interface ReadStats {
  queries: number;
  /** Items DynamoDB read (ScannedCount): what a Query bills for. */
  itemsRead: number;
  reset(): void;
}

/** Counts Query calls and items read on `db` (a middleware on its own client stack). */
export function countReads(db: DynamoDBDocumentClient): ReadStats {
  const stats: ReadStats = {
    queries: 0,
    itemsRead: 0,
    reset() {
      stats.queries = 0;
      stats.itemsRead = 0;
    },
  };
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'QueryCommand') {
        stats.queries += 1;
        stats.itemsRead += (result.output as { ScannedCount?: number }).ScannedCount ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: 'countReads' },
  );
  return stats;
}
