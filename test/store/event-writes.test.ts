import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type NewEvent, newEvent } from '#shared/records/event-record.ts';
import { commitPlan } from '#shared/store/core/commit-plan.ts';
import { notExists } from '#shared/store/core/expression.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { putItem, updateItem } from '#shared/store/core/writes.ts';
import { eventItem, eventOfItem } from '#shared/store/events/event-items.ts';
import { eventLog } from '#shared/store/events/event-log.ts';
import { withPendingEvent } from '#shared/store/events/pending-event.ts';
import { sendWithEvents } from '#shared/store/events/send-with-events.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { storedEventsOf } from '../support/store/stored-events.ts';

let t: TestTable;
beforeAll(async () => {
  t = await createTestTable('events');
});

const AT = new Date('2026-11-29T10:00:00.000Z');
let n = 0;
const tenant = () => `019b0000-0000-7000-8000-${String(++n).padStart(12, '0')}`;
const event = (tenantId: string, fields: Partial<NewEvent> = {}): NewEvent => ({
  ...newEvent('login.succeeded', AT, { request_id: 'req-1', source_ip: '203.0.113.9', user_agent: 'ua' }, { tenant_id: tenantId }),
  ...fields,
});
const stored = (tenantId: string) => storedEventsOf(t.db, t.tableName, tenantId);
const fold = (e: NewEvent) => ({ item: eventItem(e, 30) });

describe('event items', () => {
  it('keeps the record, keys it by tenant and time, indexes it by user and expires it after the retention', () => {
    const item = eventItem(event('t-1', { user_id: 'u-1' }), 30);
    expect(item.PK).toBe('EVENTS#t-1');
    expect(item.SK).toBe(`2026-11-29T10:00:00.000Z#${item.id}`);
    expect(item).toMatchObject({ GSI2PK: 'USER#u-1#EVENTS', GSI2SK: item.SK, type: 'Event', event_type: 'login.succeeded' });
    expect(item.ttl).toBe(Date.parse('2026-12-29T10:00:00.000Z') / 1000);
    expect(eventOfItem(item)).toEqual({ ...event('t-1', { user_id: 'u-1' }), id: item.id });
  });
});

describe('sendWithEvents', () => {
  it('sends the plain command when there is no event (one UpdateItem, attributes returned)', async () => {
    const { db, commands } = recordingClient(t);
    const key = { PK: `X#${tenant()}`, SK: 'X' };
    const out = await sendWithEvents(
      db,
      {
        Update: {
          TableName: t.tableName,
          Key: key,
          UpdateExpression: 'SET a = :a',
          ExpressionAttributeValues: { ':a': 1 },
          ReturnValues: 'ALL_NEW',
        },
      },
      undefined,
    );
    expect(commands).toEqual(['UpdateItemCommand']);
    expect(out).toMatchObject({ a: 1 });
  });

  it('folds the events into ONE transaction with the write: both land', async () => {
    const tid = tenant();
    const { db, commands } = recordingClient(t);
    const key = { PK: `X#${tid}`, SK: 'X' };
    await sendWithEvents(
      db,
      {
        Update: {
          TableName: t.tableName,
          Key: key,
          UpdateExpression: 'SET a = :a',
          ExpressionAttributeValues: { ':a': 2 },
          ReturnValues: 'ALL_NEW',
        },
      },
      [fold(event(tid)), fold(event(tid, { type: 'mfa.succeeded' }))],
    );
    expect(commands).toEqual(['TransactWriteItemsCommand']);
    expect((await t.db.send(new GetCommand({ TableName: t.tableName, Key: key }))).Item).toMatchObject({ a: 2 });
    expect((await stored(tid)).map((e) => e.type).sort()).toEqual(['login.succeeded', 'mfa.succeeded']);
  });

  it('a failed condition writes neither and surfaces as ConditionalCheckFailedException', async () => {
    const tid = tenant();
    const key = { PK: `X#${tid}`, SK: 'X' };
    const write = {
      Update: {
        TableName: t.tableName,
        Key: key,
        UpdateExpression: 'SET a = :a',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':a': 3 },
      },
    };
    await expect(sendWithEvents(t.db, write, [fold(event(tid))])).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((await t.db.send(new GetCommand({ TableName: t.tableName, Key: key }))).Item).toBeUndefined();
    expect(await stored(tid)).toEqual([]);
  });
});

describe('commitPlan with events', () => {
  it('folds explicit events into the first unit', async () => {
    const tid = tenant();
    await commitPlan(t.db, t.tableName, [[putItem({ PK: `Y#${tid}`, SK: 'Y', v: 1 })]], { events: [fold(event(tid))] });
    expect(await stored(tid)).toHaveLength(1);
  });

  it('a pending management event rides on the first commit, with a create target id from its put', async () => {
    const tid = tenant();
    const pending = event(tid, { type: 'management.created', target: { type: 'client', id: '' } });
    const { recorded } = await withPendingEvent(pending, fold, async () => {
      await commitPlan(t.db, t.tableName, [[putItem({ PK: `Z#${tid}`, SK: 'Z', id: 'new-id' }, { condition: notExists })]]);
      // A second write of the same request carries nothing more.
      await commitPlan(t.db, t.tableName, [[updateItem({ PK: `Z#${tid}`, SK: 'Z' }, { set: [['b', 1]] })]]);
    });
    expect(recorded).toBe(true);
    const events = await stored(tid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'management.created', target: { type: 'client', id: 'new-id' } });
  });

  it('a pending event whose write fails is not recorded, and rides on the retry', async () => {
    const tid = tenant();
    const key = { PK: `W#${tid}`, SK: 'W' };
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: key }));
    const { recorded } = await withPendingEvent(event(tid, { type: 'management.updated' }), fold, async () => {
      await expect(commitPlan(t.db, t.tableName, [[putItem({ ...key }, { condition: notExists })]])).rejects.toBeDefined();
      expect(await stored(tid)).toEqual([]);
      await commitPlan(t.db, t.tableName, [[updateItem(key, { set: [['c', 1]] })]]);
    });
    expect(recorded).toBe(true);
    expect(await stored(tid)).toHaveLength(1);
  });
});

describe('eventLog.record', () => {
  it('writes one item, and a failing write is reported, never thrown', async () => {
    const tid = tenant();
    const failures: string[] = [];
    const log = eventLog(t.db, t.tableName, 30, (e, err) => failures.push(`${e.type}:${(err as Error).name}`));
    await log.record(event(tid));
    expect(await stored(tid)).toHaveLength(1);
    const broken = eventLog(t.db, 'no-such-table', 30, (e, err) =>
      failures.push(`${e.type}:${(err as { code?: string }).code ?? (err as Error).name}`),
    );
    await expect(broken.record(event(tid))).resolves.toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^login\.succeeded:/);
  });

  it('puts the event at its key only once (the condition refuses an overwrite)', async () => {
    const tid = tenant();
    const item = eventItem(event(tid), 30);
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: item }));
    await expect(
      t.db.send(new PutCommand({ TableName: t.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' })),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(keys.event(tid, item.occurred_at as string, item.id as string)).toEqual({ PK: item.PK, SK: item.SK });
  });
});
