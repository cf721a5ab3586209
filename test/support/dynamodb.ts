import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../infra/local/dynamodb-local.ts';
import { createDocumentClient } from '../../shared/store/dynamodb-client.ts';

export interface TestTable {
  endpoint: string;
  tableName: string;
  db: DynamoDBDocumentClient;
}

/**
 * A fresh table in the run's DynamoDB Local. Refuses anything but a loopback endpoint so a test
 * can never write to a real account (DESIGN.md §3.9).
 */
export async function createTestTable(prefix = 'test'): Promise<TestTable> {
  const endpoint = inject('dynamodbEndpoint');
  if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+$/.test(endpoint)) throw new Error(`Refusing non-local DynamoDB endpoint ${endpoint}`);
  const tableName = `${prefix}-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  return { endpoint, tableName, db: createDocumentClient({ region: 'local', endpoint }) };
}
