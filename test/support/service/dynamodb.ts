import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import type { DependencyBudget } from '#shared/aws/dependency-budget.ts';
import { createDocumentClient } from '#shared/store/core/dynamodb-client.ts';
import { ensureTable } from '../../../infra/local/dynamodb-local.ts';

/**
 * The test run shares one DynamoDB Local across files running in parallel on a loaded machine: a
 * slow moment there must not turn into a 503 in a test about something else, so ordinary tests
 * use a generous budget. The fault tests (test/http/dynamodb-stall.test.ts) run with the service's own defaults.
 */
export const TEST_BUDGET: DependencyBudget = { connectTimeoutMs: 5000, attemptTimeoutMs: 10_000, maxAttempts: 3 };
/** TEST_BUDGET as the config's settings, for runtimes built from the environment (shared/config.ts). */
export const TEST_BUDGET_ENV: Readonly<Record<string, string>> = {
  DYNAMODB_CONNECT_TIMEOUT_MS: String(TEST_BUDGET.connectTimeoutMs),
  DYNAMODB_ATTEMPT_TIMEOUT_MS: String(TEST_BUDGET.attemptTimeoutMs),
  DYNAMODB_MAX_ATTEMPTS: String(TEST_BUDGET.maxAttempts),
};

export interface TestTable {
  endpoint: string;
  tableName: string;
  db: DynamoDBDocumentClient;
}

/**
 * A fresh table in the run's DynamoDB Local. Refuses anything but a loopback endpoint so a test
 * can never write to a real account (docs/design.md §3.9).
 */
export async function createTestTable(prefix = 'test'): Promise<TestTable> {
  const endpoint = inject('dynamodbEndpoint');
  if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+$/.test(endpoint)) throw new Error(`Refusing non-local DynamoDB endpoint ${endpoint}`);
  const tableName = `${prefix}-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  return { endpoint, tableName, db: createDocumentClient({ region: 'local', endpoint, budget: TEST_BUDGET }) };
}

/** A client of the test table that records the name of every command it sends (for read/write counts). */
export function recordingClient(table: TestTable): { db: DynamoDBDocumentClient; commands: string[] } {
  const commands: string[] = [];
  const db = createDocumentClient({ region: 'local', endpoint: table.endpoint, budget: TEST_BUDGET });
  db.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { db, commands };
}
