import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { conflict } from '#shared/errors.ts';
import { exists, notExists } from '#shared/store/core/expression.ts';
import { getItem } from '#shared/store/core/reads/read-items.ts';
import { deleteItem, putItem, updateItem } from '#shared/store/core/writes.ts';
import { commitLinkChange, LinkPlan } from '#shared/store/rbac/link-commit.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

let t: TestTable;
beforeAll(async () => {
  t = await createTestTable('link-commit');
});

const NOW = new Date('2026-01-15T10:00:00.000Z');
const k = (pk: string, sk = 'X') => ({ PK: pk, SK: sk });

describe('commitLinkChange: read → plan → commit, retried from a fresh read (docs/data-model.md §7)', () => {
  it('a plan split over two transactions that loses a race after the first is retried without redoing or refusing what it committed', async () => {
    const run = `run-${Date.now()}`;
    // The blocker stands for a concurrent writer: the last unit requires it gone, so the second
    // transaction fails once; the plan's second attempt finds it gone.
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: { ...k(`${run}#blocker`) } }));
    const seen: string[][] = [];
    await commitLinkChange(t.db, t.tableName, async (done) => {
      seen.push([...done]);
      if (seen.length === 2) await t.db.send(new DeleteCommand({ TableName: t.tableName, Key: k(`${run}#blocker`) }));
      const plan = new LinkPlan();
      for (let i = 0; i < 100; i++) {
        const id = `${run}#link${i}`;
        // What an earlier attempt committed is done: planning it again would be a 409 "already linked".
        if (done.has(id)) continue;
        if (await getItem(t.db, t.tableName, k(id), NOW)) throw conflict(`${id} already exists`);
        plan.add([[putItem({ ...k(id) }, { condition: notExists })]], id);
      }
      plan.add(
        [
          [
            putItem({ ...k(`${run}#last`) }, { condition: notExists }),
            updateItem(k(`${run}#counter`), { add: [['n', 1]] }),
            deleteItem(k(`${run}#blocker`), { condition: notExists }),
          ],
        ],
        'last',
      );
      return plan;
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual([]);
    expect(seen[1]).toHaveLength(100); // the first transaction's links, not 'last'
    expect(await getItem(t.db, t.tableName, k(`${run}#link99`), NOW)).toMatchObject(k(`${run}#link99`));
    expect(await getItem(t.db, t.tableName, k(`${run}#last`), NOW)).toMatchObject(k(`${run}#last`));
    expect((await getItem(t.db, t.tableName, k(`${run}#counter`), NOW))?.n).toBe(1);
  });

  it('an error the plan throws (404/409) is the answer: nothing is written and nothing retried', async () => {
    let attempts = 0;
    await expect(
      commitLinkChange(t.db, t.tableName, async () => {
        attempts++;
        throw conflict('already linked');
      }),
    ).rejects.toMatchObject({ status: 409, message: 'already linked' });
    expect(attempts).toBe(1);
  });

  it('guards: a plan read under links_version commits only while it holds, and raises it', async () => {
    const key = k(`guarded-${Date.now()}`);
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: { ...key, links_version: 3 } }));
    await commitLinkChange(t.db, t.tableName, async () =>
      new LinkPlan().guard(key, 3).add([[updateItem(key, { add: [['count', 1]], condition: exists })]]),
    );
    expect(await getItem(t.db, t.tableName, key, NOW)).toMatchObject({ links_version: 4, count: 1 });
  });
});
