import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { conflict } from '#shared/errors.ts';
import { commitPlan, MAX_PATHS_PER_ITEM } from '#shared/store/core/commit-plan.ts';
import { equals, exists, notExists } from '#shared/store/core/expression.ts';
import { putMarker } from '#shared/store/core/markers.ts';
import { mergePatch } from '#shared/store/core/merge-patch.ts';
import { getItem, getItems } from '#shared/store/core/reads/read-items.ts';
import { RetryableConflict } from '#shared/store/core/retry.ts';
import { translateError } from '#shared/store/core/translate-error.ts';
import { ttlOf } from '#shared/store/core/ttl.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { updateWithRetry, versionedUpdate } from '#shared/store/core/versioned-update.ts';
import { checkItem, deleteItem, putItem, updateItem, type Write } from '#shared/store/core/writes.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';

let t: TestTable;
beforeAll(async () => {
  t = await createTestTable('helpers');
});

const NOW = new Date('2026-01-15T10:00:00.000Z');
const k = (pk: string, sk = 'X') => ({ PK: pk, SK: sk });
const get = (pk: string, sk = 'X') => getItem(t.db, t.tableName, k(pk, sk), NOW);
const commit = (units: Write[][], opts = {}) => commitPlan(t.db, t.tableName, units, opts);

describe('uuidv7 (RFC 9562 §5.7)', () => {
  it('has version 7, the RFC 4122 variant and the current time in its first 48 bits', () => {
    const id = uuidv7(Date.UTC(2026, 0, 15));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 15));
  });

  it('is strictly increasing even within one millisecond, so GSI1SK = id is creation order', () => {
    const ids = Array.from({ length: 10_000 }, () => uuidv7());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('mergePatch (PATCH merges, docs/contract.md §6)', () => {
  it('merges objects recursively, replaces arrays, skips undefined, keeps null as a value', () => {
    const current = { a: 1, m: { x: [1, 2], y: { z: 1, w: 2 } }, n: 'keep', e: '2027' as string | null };
    expect(mergePatch(current, { m: { x: [3], y: { z: 9 } }, a: undefined, e: null })).toEqual({
      a: 1,
      m: { x: [3], y: { z: 9, w: 2 } },
      n: 'keep',
      e: null,
    });
  });
});

describe('reads of keys beyond the key limits (shared/store/core/reads/read-items.ts)', () => {
  it('are absent, not a ValidationException: a client-sent id can never make a read a 500', async () => {
    // At the limits (2,048 bytes of partition key, 1,024 of sort key, multi-byte counted) the item is found.
    const pk = `P#${'é'.repeat(1023)}`; // 2 + 2,046 bytes
    const sk = 'S'.repeat(1024);
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: { PK: pk, SK: sk, v: 1 } }));
    expect(await get(pk, sk)).toMatchObject({ v: 1 });
    // One byte more on either side: DynamoDB itself would refuse the GetItem.
    await expect(t.db.send(new PutCommand({ TableName: t.tableName, Item: { PK: `${pk}x`, SK: 'X' } }))).rejects.toThrow(/2048 bytes/);
    expect(await get(`${pk}x`, sk)).toBeUndefined();
    expect(await get(pk, `${sk}é`)).toBeUndefined();
    const batch = await getItems(t.db, t.tableName, [k(pk, sk), k(`${pk}x`), k('x'.repeat(5000))], NOW);
    expect([...batch.values()].map((i) => i.v)).toEqual([1]);
  });
});

describe('TTL: an expired item is absent on read (shared/store/core/ttl.ts)', () => {
  it('getItem hides an item whose ttl has passed, even before DynamoDB deletes it', async () => {
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: { ...k('TTL#old'), ttl: ttlOf(new Date(NOW.getTime() - 1000)) } }));
    await t.db.send(new PutCommand({ TableName: t.tableName, Item: { ...k('TTL#new'), ttl: ttlOf(new Date(NOW.getTime() + 60_000)) } }));
    expect(await get('TTL#old')).toBeUndefined();
    expect(await get('TTL#new')).toMatchObject(k('TTL#new'));
    const batch = await getItems(t.db, t.tableName, [k('TTL#old'), k('TTL#new')], NOW);
    expect([...batch.values()].map((i) => i.PK)).toEqual(['TTL#new']);
  });

  it('an expired uniqueness marker can be reclaimed; a live one cannot', async () => {
    const nowSeconds = ttlOf(NOW);
    const key = k('UNIQUE#TEST#code', 'UNIQUE');
    await commit([[putMarker(key, 'first', { ttl: nowSeconds + 60, nowSeconds, onTaken: () => conflict('taken') })]]);
    await expect(commit([[putMarker(key, 'second', { nowSeconds, onTaken: () => conflict('taken') })]])).rejects.toMatchObject({
      status: 409,
      message: 'taken',
    });
    const later = nowSeconds + 61;
    await commit([[putMarker(key, 'second', { nowSeconds: later, onTaken: () => conflict('taken') })]]);
    expect((await getItem(t.db, t.tableName, key, new Date(later * 1000)))?.target_id).toBe('second');
  });
});

describe('commitPlan (TransactWriteItems, ≤ 100 items)', () => {
  it('is all-or-nothing: one failing condition among five writes leaves nothing written', async () => {
    await commit([[putItem({ ...k('AON#3'), v: 'old' })]]);
    const units = [1, 2, 3, 4, 5].map((i) => [putItem({ ...k(`AON#${i}`), v: 'new' }, { condition: notExists })]);
    await expect(commit(units)).rejects.toBeInstanceOf(RetryableConflict);
    for (const i of [1, 2, 4, 5]) expect(await get(`AON#${i}`)).toBeUndefined();
    expect((await get('AON#3'))?.v).toBe('old');
  });

  it('maps a failed condition to the failing write’s own error', async () => {
    await commit([[putItem({ ...k('ERR#1') })]]);
    const err = commit([
      [putItem({ ...k('ERR#0') }), putItem({ ...k('ERR#1') }, { condition: notExists, onFail: () => conflict('ERR#1 exists') })],
    ]);
    await expect(err).rejects.toMatchObject({ status: 409, message: 'ERR#1 exists' });
  });

  it('merges writes of one item: conditions ANDed, counters summed, a delete absorbs updates', async () => {
    await commit([[putItem({ ...k('M#1'), n: 1, version: 1 }), putItem({ ...k('M#2'), n: 1 })]]);
    await commit([
      [updateItem(k('M#1'), { add: [['n', 2]] }), checkItem(k('M#1'), exists)],
      [updateItem(k('M#1'), { add: [['n', 3]], condition: equals('version', 1) })],
      [updateItem(k('M#2'), { add: [['n', 5]] }), deleteItem(k('M#2'))],
      [putItem({ ...k('M#3') })],
    ]);
    expect((await get('M#1'))?.n).toBe(6);
    expect(await get('M#2')).toBeUndefined();
  });

  it('packs more than 100 items into ordered chunks, reporting each', async () => {
    const units = Array.from({ length: 150 }, (_, i) => [putItem({ ...k(`CH#${i}`) })]);
    const committed: number[][] = [];
    await commit(units, { onCommitted: (idx: readonly number[]) => committed.push([...idx]) });
    expect(committed.map((c) => c.length)).toEqual([100, 50]);
    expect(
      (
        await getItems(
          t.db,
          t.tableName,
          units.map((_, i) => k(`CH#${i}`)),
          NOW,
        )
      ).size,
    ).toBe(150);
  });

  it('splits units so no item update names more than MAX_PATHS_PER_ITEM paths (DynamoDB: 4 KB per expression)', async () => {
    // 150 counters of one map, as granting 150 scopes of one resource moves its scope_holders:
    // one UpdateItem with all of them is rejected by DynamoDB ("Expression size has exceeded").
    await commit([[putItem({ ...k('P#1'), m: {} })]]);
    const units = Array.from({ length: 150 }, (_, i) => [
      updateItem(k('P#1'), { add: [[['m', `scope-${String(i).padStart(3, '0')}-0190a1b2-c3d4-7e5f`], 1]] }),
    ]);
    const committed: number[][] = [];
    await commit(units, { onCommitted: (idx: readonly number[]) => committed.push([...idx]) });
    expect(committed.map((c) => c.length)).toEqual([MAX_PATHS_PER_ITEM, MAX_PATHS_PER_ITEM, 150 - 2 * MAX_PATHS_PER_ITEM]);
    expect(Object.keys((await get('P#1'))?.m as object)).toHaveLength(150);
  });

  it('merging: removing a map entry drops changes inside it (DynamoDB rejects overlapping paths)', async () => {
    await commit([[putItem({ ...k('O#1'), g: { r: { a: true, b: true } }, h: { r: { n: 1 } } })]]);
    await commit([
      [
        updateItem(k('O#1'), { remove: [['g', 'r', 'a']], set: [[['h', 'r', 'x'], 1]], add: [[['h', 'r', 'n'], 1]] }),
        updateItem(k('O#1'), {
          remove: [
            ['g', 'r'],
            ['h', 'r'],
          ],
          set: [['n', 1]],
        }),
      ],
    ]);
    expect(await get('O#1')).toMatchObject({ g: {}, h: {}, n: 1 });
  });

  it('a links_version guard fails (retryably) when the record changed since it was read', async () => {
    await commit([[putItem({ ...k('G#1'), links_version: 4 })]]);
    await expect(
      commit([[updateItem(k('G#1'), { add: [['n', 1]] })]], { guards: [{ key: k('G#1'), expected: 3 }] }),
    ).rejects.toBeInstanceOf(RetryableConflict);
    await commit([[updateItem(k('G#1'), { add: [['n', 1]] }), putItem({ ...k('G#2') })]], { guards: [{ key: k('G#1'), expected: 4 }] });
    expect((await get('G#1'))?.links_version).toBe(5);
  });
});

describe('version-conditioned update (no lost update)', () => {
  it('a stale version is a RetryableConflict; updateWithRetry re-reads and re-applies the merge', async () => {
    await commit([[putItem({ ...k('V#1'), version: 1, a: 'a0', b: 'b0' })]]);
    await expect(commit([[versionedUpdate(k('V#1'), { a: 'x' }, 0)]])).rejects.toBeInstanceOf(RetryableConflict);
    let calls = 0;
    const out = await updateWithRetry({
      load: async () => (await get('V#1')) as { version: number; a: string },
      notFound: () => conflict('gone'),
      write: async (cur) => {
        calls += 1;
        // Someone else commits between our read and our write, once.
        if (calls === 1) await commit([[versionedUpdate(k('V#1'), { b: 'b1' }, cur.version)]]);
        const { attributes } = await commit([[versionedUpdate(k('V#1'), { a: 'a1' }, cur.version)]]);
        return attributes as { version: number; a: string };
      },
    });
    expect(calls).toBe(2);
    expect(out).toMatchObject({ a: 'a1', b: 'b1', version: 3 });
  });
});

describe('AWS errors are translated at the boundary (docs/design.md §3.4)', () => {
  const failing = (err: Error) => ({ send: async () => Promise.reject(err) }) as unknown as DynamoDBDocumentClient;
  const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });

  it('throttling after the SDK’s retries is 503 with Retry-After', async () => {
    const db = failing(named('ProvisionedThroughputExceededException'));
    await expect(getItem(db, 'x', k('A'), NOW)).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
      headers: { 'Retry-After': '1' },
    });
    await expect(commitPlan(db, 'x', [[putItem(k('A')), putItem(k('B'))]])).rejects.toMatchObject({ status: 503 });
  });

  it('a transaction cancelled by throttling is 503; by a concurrent transaction it is retryable', async () => {
    const throttled = failing(
      named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] }),
    );
    await expect(commitPlan(throttled, 'x', [[putItem(k('A')), putItem(k('B'))]])).rejects.toMatchObject({ status: 503 });
    // the same answer when translateError sees it directly (a write outside commitPlan)
    expect(() => translateError(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ThrottlingError' }] }))).toThrow(
      expect.objectContaining({ status: 503, code: 'service_unavailable' }),
    );
    const raced = failing(
      named('TransactionCanceledException', { CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }] }),
    );
    await expect(commitPlan(raced, 'x', [[putItem(k('A')), putItem(k('B'))]])).rejects.toBeInstanceOf(RetryableConflict);
  });

  it('an unreachable DynamoDB is 503 (fail closed)', async () => {
    await expect(getItem(failing(named('Error', { code: 'ECONNREFUSED' })), 'x', k('A'), NOW)).rejects.toMatchObject({ status: 503 });
  });
});
