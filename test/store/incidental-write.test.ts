import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '#shared/records/event-record.ts';
import { commitPlan } from '#shared/store/core/commit-plan.ts';
import { updateItem } from '#shared/store/core/writes.ts';
import { eventItem } from '#shared/store/events/event-items.ts';
import { withPendingEvent } from '#shared/store/events/pending-event.ts';
import { createTestTable, recordingClient, type TestTable } from '../support/service/dynamodb.ts';
import { storedEventsOf } from '../support/store/stored-events.ts';

/**
 * A write a management request needs before its change (an empty map a later path goes into) is
 * `incidental`: the request's pending event waits for the change itself (docs/events.md
 * "Management writes"), so it lands if and only if the change does.
 */
let t: TestTable;
beforeAll(async () => {
  t = await createTestTable('incidental');
});

const AT = new Date('2026-11-29T10:00:00.000Z');
const fold = (e: Parameters<typeof eventItem>[0]) => ({ item: eventItem(e, 30) });

describe('commitPlan incidental', () => {
  it('an incidental plan is sent as it is and leaves the pending event to the change after it', async () => {
    const tid = '019b0000-0000-7000-8000-0000000000a1';
    const key = { PK: `I#${tid}`, SK: 'I' };
    const { db, commands } = recordingClient(t);
    const pending = newEvent('management.updated', AT, {}, { tenant_id: tid, target: { type: 'group', id: 'g-1' } });
    const { recorded } = await withPendingEvent(pending, fold, async () => {
      await commitPlan(db, t.tableName, [[updateItem(key, { set: [['group_ids', {}]] })]], { incidental: true });
      expect(await storedEventsOf(t.db, t.tableName, tid)).toEqual([]);
      await commitPlan(db, t.tableName, [[updateItem(key, { set: [[['group_ids', 'g-1'], true]] })]]);
    });
    // The incidental write stays one plain UpdateItem; the change and its event are one transaction.
    expect(commands).toEqual(['UpdateItemCommand', 'TransactWriteItemsCommand']);
    expect(recorded).toBe(true);
    const events = await storedEventsOf(t.db, t.tableName, tid);
    expect(events.map((e) => [e.type, e.target])).toEqual([['management.updated', { type: 'group', id: 'g-1' }]]);
    const item = (await t.db.send(new GetCommand({ TableName: t.tableName, Key: key, ConsistentRead: true }))).Item;
    expect(item?.group_ids).toEqual({ 'g-1': true });
  });

  it('with only an incidental write, the event is not recorded (the pipeline then records it itself)', async () => {
    const tid = '019b0000-0000-7000-8000-0000000000a2';
    const pending = newEvent('management.updated', AT, {}, { tenant_id: tid });
    const { recorded } = await withPendingEvent(pending, fold, () =>
      commitPlan(t.db, t.tableName, [[updateItem({ PK: `I#${tid}`, SK: 'I' }, { set: [['a', 1]] })]], { incidental: true }),
    );
    expect(recorded).toBe(false);
    expect(await storedEventsOf(t.db, t.tableName, tid)).toEqual([]);
  });
});
