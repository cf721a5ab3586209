import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from './table-keys.ts';

/**
 * Health's table probe: one GetItem of a key that never exists (0.5 RCU), so it
 * needs only read access and proves the table answers. Rejects when `signal` aborts first.
 */
export const tableProbe =
  (db: DynamoDBDocumentClient, tableName: string) =>
  async (signal: AbortSignal): Promise<void> => {
    await db.send(new GetCommand({ TableName: tableName, Key: keys.healthProbe }), { abortSignal: signal });
  };
