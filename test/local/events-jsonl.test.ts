import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newEvent } from '#shared/records/event-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { createTableInput } from '#shared/store/core/table-definition.ts';
import { eventLogOf } from '#shared/wiring/events.ts';
import { ensureTable } from '../../infra/local/dynamodb-local.ts';
import { LOCAL_STREAM_POLL_MS } from '../../infra/local/event-stream.ts';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.ts';
import { storedEvents } from '../support/store/stored-events.ts';

/**
 * `npm start` writes every security event as one JSON line to `<DATA_DIR>/events.jsonl`
 * (docs/events.md "Locally: events.jsonl"), through the forwarder the stage's Lambda runs, fed by
 * DynamoDB Local's stream of the table. The stack here is npm start's (a data folder, the file in
 * it) on the run's DynamoDB Local.
 */
const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

/** Waits until the file holds `count` lines (the stream is read every LOCAL_STREAM_POLL_MS). */
async function linesOnceThere(file: string, count: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = lines(file);
    if (got.length >= count || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, LOCAL_STREAM_POLL_MS));
  }
}

let dir: string;
let file: string;
let stack: LocalStack;
const endpoint = () => inject('dynamodbEndpoint');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'events-jsonl-'));
  file = join(dir, 'events.jsonl');
  stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamodbEndpoint: endpoint(),
    tableName: `events-${randomUUID()}`,
    stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
    eventsFile: file,
  });
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const origin = { request_id: 'req-local-1', source_ip: '127.0.0.1', user_agent: 'curl/8.5.0' };

describe('events.jsonl (docs/events.md "Locally: events.jsonl")', () => {
  it('an event written to the table appears as one JSON line: its record, as the query API and the bus carry it', async () => {
    expect(stack.eventsFile).toBe(file);
    const userId = randomUUID();
    await eventLogOf(stack.runtime).record(
      newEvent('login.failed', stack.runtime.now(), origin, { tenant_id: DEFAULT_TENANT_ID, user_id: userId, reason: 'wrong_password' }),
    );
    const [stored] = (await storedEvents(stack.runtime, DEFAULT_TENANT_ID, 'login.failed')).filter((e) => e.user_id === userId);
    const { ttl: _ttl, ...record } = stored!;
    const got = await linesOnceThere(file, 1);
    // Bootstrap's writes (clients, keys, the management API) are no events: the only line is this one.
    expect(got).toEqual([record]);
    expect(got[0]).toMatchObject({ type: 'login.failed', reason: 'wrong_password', user_id: userId, source_ip: '127.0.0.1' });
    expect(got[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('a burst of 30 events: every one, once, in the order written', async () => {
    const before = lines(file).length;
    const log = eventLogOf(stack.runtime);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const userId = randomUUID();
      ids.push(userId);
      await log.record(newEvent('login.succeeded', stack.runtime.now(), origin, { tenant_id: DEFAULT_TENANT_ID, user_id: userId }));
    }
    const got = (await linesOnceThere(file, before + 30)).slice(before);
    expect(got.map((l) => l.user_id)).toEqual(ids);
    expect(new Set(got.map((l) => l.id)).size).toBe(30);
  });

  it('an event written just before the stack stops is still written: stop reads the stream once more', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'events-jsonl-stop-'));
    const file2 = join(dir2, 'events.jsonl');
    const s = await startLocalStack({
      port: 0,
      dataDir: dir2,
      dynamodbEndpoint: endpoint(),
      tableName: `events-${randomUUID()}`,
      stageThrottle: { rateLimit: 10_000, burstLimit: 10_000 },
      eventsFile: file2,
    });
    try {
      await eventLogOf(s.runtime).record(
        newEvent('lockout.started', s.runtime.now(), origin, { tenant_id: DEFAULT_TENANT_ID, user_id: 'u-last' }),
      );
    } finally {
      await s.stop();
    }
    expect(lines(file2).map((l) => [l.type, l.user_id])).toEqual([['lockout.started', 'u-last']]);
    rmSync(dir2, { recursive: true, force: true });
  });
});

describe('the table stream', () => {
  const client = () =>
    new DynamoDBClient({ endpoint: endpoint(), region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

  it('an existing table without a stream (a data folder from before) gets one, of new images', async () => {
    const db = client();
    const tableName = `old-${randomUUID()}`;
    try {
      await db.send(new CreateTableCommand(createTableInput(tableName)));
      expect((await db.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification?.StreamEnabled).not.toBe(true);
      await ensureTable(endpoint(), tableName, 'local', { stream: true });
      const { Table } = await db.send(new DescribeTableCommand({ TableName: tableName }));
      expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
      expect(Table?.LatestStreamArn).toContain(tableName);
      // Idempotent: the second start leaves it as it is.
      await ensureTable(endpoint(), tableName, 'local', { stream: true });
      expect((await db.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn).toBe(Table?.LatestStreamArn);
    } finally {
      await db.send(new DeleteTableCommand({ TableName: tableName }));
      db.destroy();
    }
  });

  it('without an events file (the test services) the table has no stream', async () => {
    const db = client();
    const tableName = `plain-${randomUUID()}`;
    try {
      await ensureTable(endpoint(), tableName);
      expect((await db.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification?.StreamEnabled).not.toBe(true);
    } finally {
      await db.send(new DeleteTableCommand({ TableName: tableName }));
      db.destroy();
    }
  });
});
