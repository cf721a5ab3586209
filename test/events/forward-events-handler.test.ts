import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '#shared/records/event-record.ts';
import { eventItem } from '#shared/store/events/event-items.ts';

/**
 * The forwarder function as Lambda runs it (functions/events/forward-events.ts): its handler, its
 * wiring and the EventBridge client, against a stand-in for EventBridge's PutEvents on loopback
 * (the SDK's AWS_ENDPOINT_URL_EVENTBRIDGE), which refuses the entries a test names.
 */
interface PutEventsBody {
  Entries: { EventBusName: string; Source: string; DetailType: string; Detail: string }[];
}
const calls: { target: string | undefined; body: PutEventsBody }[] = [];
let refuse = new Set<string>();
let server: Server;
let testEnv: Record<string, string> = {};

const read = (req: IncomingMessage) =>
  new Promise<string>((res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => res(data));
  });

let handler: (event: DynamoDBStreamEvent, context: Context) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await read(req)) as PutEventsBody;
    calls.push({ target: req.headers['x-amz-target'] as string | undefined, body });
    const entries = body.Entries.map((e, i) =>
      refuse.has(JSON.parse(e.Detail).id) ? { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' } : { EventId: `ev-${i}` },
    );
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    res.end(JSON.stringify({ FailedEntryCount: entries.filter((e) => 'ErrorCode' in e).length, Entries: entries }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(
    process.env,
    (testEnv = {
      AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      TABLE_NAME: 'unused',
      STAGE: 'prod',
      KEY_MODE: 'envelope',
      KMS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-0000-0000-000000000000',
      EVENT_BUS_NAME: 'identity-service-prod',
      ISSUER: 'https://id.example.com',
    }),
  );
  ({ handler } = await import('../../functions/events/forward-events.ts'));
});
afterAll(async () => {
  for (const name of Object.keys(testEnv)) delete process.env[name];
  await new Promise<void>((r) => server.close(() => r()));
});

const context = { functionName: 'forward-events', awsRequestId: 'r-1' } as Context;
let sequence = 1;
const record = (item: Record<string, unknown>) =>
  ({
    eventID: String(sequence),
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: { SequenceNumber: String(sequence++), NewImage: marshall(item) as never, StreamViewType: 'NEW_IMAGE' },
  }) as DynamoDBStreamEvent['Records'][number];

const item = (i: number) =>
  eventItem(
    newEvent(
      'login.failed',
      new Date(Date.UTC(2026, 2, 1, 10, 0, i)),
      { request_id: `req-${i}` },
      { tenant_id: 't-1', reason: 'wrong_password' },
    ),
    30,
  );

describe('the forwarder function (docs/events.md "Streaming: the EventBridge bus")', () => {
  it('puts each event on the stage bus: PutEvents with source, detail-type and the record as detail', async () => {
    calls.length = 0;
    const items = [item(1), item(2)];
    const out = await handler({ Records: items.map(record) }, context);
    expect(out).toEqual({ batchItemFailures: [] });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.target).toBe('AWSEvents.PutEvents');
    expect(calls[0]!.body.Entries.map((e) => ({ ...e, Detail: JSON.parse(e.Detail) }))).toEqual(
      items.map((it) => ({
        EventBusName: 'identity-service-prod',
        Source: 'identity-service.prod',
        DetailType: 'login.failed',
        Detail: {
          id: it.id,
          type: 'login.failed',
          occurred_at: it.occurred_at,
          tenant_id: 't-1',
          reason: 'wrong_password',
          request_id: it.request_id,
        },
      })),
    );
  });

  it("an entry EventBridge refuses twice (per-entry ErrorCode) is the function's batch item failure", async () => {
    calls.length = 0;
    const items = [item(3), item(4), item(5)];
    const records = items.map(record);
    refuse = new Set([items[1]!.id as string]);
    const out = await handler({ Records: records }, context);
    refuse = new Set<string>();
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect(calls.map((c) => c.body.Entries.length)).toEqual([3, 1]);
  });
});
