import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { EventRecord, EventType } from '#shared/records/event-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { storedEvents } from '../store/stored-events.ts';

/** The user agent the flow tests send: every event of their requests must carry it. */
export const TEST_AGENT = 'events-test-agent/1.0';

/** The tenant's events of `type` that name `userId`, oldest first, with their `ttl`. */
export async function eventsOf(runtime: Runtime, tenantId: string, type: EventType, userId: string) {
  return (await storedEvents(runtime, tenantId, type)).filter((e) => e.user_id === userId);
}

/**
 * Asserts the one stored event exactly: the fields the flow sets, an origin from the gateway (the
 * request id, the local server's address, TEST_AGENT), a UUIDv7 id, and the retention's `ttl`.
 */
export function expectEvent(
  event: (EventRecord & { ttl: number }) | undefined,
  fields: Omit<EventRecord, 'id' | 'occurred_at' | 'request_id' | 'source_ip' | 'user_agent'>,
  retentionDays: number,
) {
  expect(event).toEqual({
    ...fields,
    id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    request_id: expect.any(String),
    source_ip: expect.any(String),
    user_agent: TEST_AGENT,
    ttl: Math.floor(Date.parse(event!.occurred_at) / 1000) + retentionDays * 86_400,
  });
}

/** No value of `secrets` appears anywhere in the tenant's stored event items (keys and all). */
export async function expectNoSecretStored(runtime: Runtime, tenantId: string, secrets: readonly (string | undefined)[]) {
  const page = await runtime.db.send(
    new QueryCommand({
      TableName: runtime.config.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.tenantEvents(tenantId) },
      ConsistentRead: true,
    }),
  );
  const stored = JSON.stringify(page.Items ?? []);
  for (const secret of secrets) {
    expect(secret, 'a secret to look for').toEqual(expect.any(String));
    expect(secret!.length).toBeGreaterThan(3);
    expect(stored).not.toContain(secret);
  }
}

/**
 * The DynamoDB commands the service's client sends while `fn` runs, a transaction with its item
 * count (`TransactWriteItemsCommand(2)`): what the counted-call tests of the events compare.
 */
export async function commandsDuring(runtime: Runtime, fn: () => Promise<void>): Promise<string[]> {
  const names: string[] = [];
  const db = runtime.db;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      names.push(items ? `${context.commandName}(${items.length})` : String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countEventTestCalls' },
  );
  try {
    await fn();
  } finally {
    db.middlewareStack.remove('countEventTestCalls');
  }
  return names;
}
