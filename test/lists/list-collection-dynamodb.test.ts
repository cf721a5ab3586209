import { randomBytes } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { clientsCollection as spec } from '#shared/lists/collections/clients.ts';
import { type ListEnvelope, listCollection } from '#shared/lists/list-collection.ts';
import { pagedSource } from '#shared/lists/paged-source.ts';
import { parseListParams } from '#shared/lists/parse-list-params.ts';
import { queryPage } from '#shared/store/core/reads/query-page.ts';
import { querySource, stripKeys } from '#shared/store/core/reads/query-source.ts';
import { createTestTable } from '../support/service/dynamodb.ts';
import { countReads, makeClients, putCollection, type ReadStats, uuidv7 } from '../support/store/list-fixtures.ts';

const key = randomBytes(32);
const T1 = 'TENANT#t1#CLIENTS';
const T2 = 'TENANT#t2#CLIENTS';
const BIG = 'TENANT#big#CLIENTS';

let db: DynamoDBDocumentClient;
let tableName: string;
let reads: ReadStats;
const clients = makeClients(57);
const allIds = clients.map((c) => c.id);

beforeAll(async () => {
  ({ db, tableName } = await createTestTable('lists'));
  await putCollection(db, tableName, T1, clients);
  await putCollection(db, tableName, T2, makeClients(15));
  await putCollection(db, tableName, BIG, makeClients(1000));
  reads = countReads(db);
});

const source = (partition: string) => querySource(db, tableName, { indexName: 'GSI1', partition });
const list = (query: Record<string, string>, partition = T1) =>
  listCollection({ spec, source: source(partition), params: parseListParams(spec, query), cursorKey: key });
const ids = (e: ListEnvelope) => e.items.map((i) => i.id);

async function walkByCursor(query: Record<string, string>) {
  const seen: unknown[] = [];
  let page = await list(query);
  for (;;) {
    seen.push(...ids(page));
    if (!page.next_cursor) return seen;
    page = await list({ ...query, cursor: page.next_cursor });
  }
}

async function walkByOffset(query: Record<string, string>) {
  const seen: unknown[] = [];
  for (let offset = 0; ; offset += 10) {
    const page = await list({ ...query, offset: String(offset) });
    seen.push(...ids(page));
    if (!page.has_more) return seen;
  }
}

describe('a GSI1 collection in DynamoDB Local (57 records, limit 10)', () => {
  it('the records come back as stored, without key or storage-only attributes', async () => {
    const page = await list({ limit: '1' });
    expect(page.items[0]).toEqual(clients[0]);
  });

  it.each([
    ['default order (fast path)', {}, allIds],
    ['newest first (fast path, descending)', { sort: 'created_at:desc' }, [...allIds].reverse()],
    ['filtered and sorted (general path)', { q: '(is_public=true)', sort: 'client_type,created_at:desc' }, undefined],
  ])('by cursor and by offset, same order, no gaps or duplicates: %s', async (_, query, expected) => {
    const q = { ...query, limit: '10' };
    const byCursor = await walkByCursor(q);
    const byOffset = await walkByOffset(q);
    expect(byCursor).toEqual(byOffset);
    expect(new Set(byCursor).size).toBe(byCursor.length);
    if (expected) expect(byCursor).toEqual(expected);
    else expect(byCursor).toEqual(ids(await list({ ...query, limit: '100' })));
  });

  it('total_count, first and last pages', async () => {
    expect(await list({ total_count: 'true', offset: '50' })).toMatchObject({ total_count: 57, count: 7, has_more: false, offset: 50 });
    expect(await list({ offset: '57' })).toMatchObject({ count: 0, has_more: false, items: [] });
    expect(await list({ limit: '57' })).toMatchObject({ count: 57, has_more: false });
  });

  it('a cursor of another tenant is a 400 naming query.cursor', async () => {
    const cursor = String((await list({}, T2)).next_cursor);
    const err = await list({ cursor }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isAppError(err) && err.status === 400 && err.code === 'invalid_request' && /^query\.cursor: /.test(err.message)).toBe(true);
  });
});

describe('key-based cursors under concurrent changes', () => {
  it('a record deleted or added between pages causes no gap or duplicate', async () => {
    const P = 'TENANT#moving#CLIENTS';
    const records = makeClients(25);
    await putCollection(db, tableName, P, records);
    const first = await list({ limit: '10' }, P);
    // Delete the record the cursor points at, and add a newer one.
    await db.send(new DeleteCommand({ TableName: tableName, Key: { PK: `CLIENT#${String(records[9]?.id)}`, SK: 'CLIENT' } }));
    const [added] = makeClients(1).map((c) => ({ ...c, id: uuidv7(Date.parse('2030-01-01'), 0) }));
    await putCollection(db, tableName, P, [added as Record<string, unknown>]);
    const second = await list({ limit: '10', cursor: String(first.next_cursor) }, P);
    const third = await list({ limit: '10', cursor: String(second.next_cursor) }, P);
    expect([...ids(second), ...ids(third)]).toEqual([...records.slice(10).map((r) => r.id), added?.id]);
    expect(third.has_more).toBe(false);
  });
});

describe('cost: items DynamoDB reads (1,000-record collection)', () => {
  const measure = async (query: Record<string, string>) => {
    reads.reset();
    const page = await list(query, BIG);
    return { queries: reads.queries, itemsRead: reads.itemsRead, page };
  };

  it('first page: one Query reading limit + 1 items', async () => {
    const { queries, itemsRead, page } = await measure({ limit: '10' });
    expect(page.count).toBe(10);
    expect({ queries, itemsRead }).toEqual({ queries: 1, itemsRead: 11 });
    expect((await measure({ limit: '100' })).itemsRead).toBe(101);
  });

  it('deep page by cursor: still limit + 1 items', async () => {
    let page = await list({ limit: '100' }, BIG);
    for (let i = 0; i < 5; i++) page = await list({ limit: '100', cursor: String(page.next_cursor) }, BIG);
    const deep = await measure({ limit: '10', cursor: String(page.next_cursor) });
    expect(deep.page.offset).toBe(600);
    expect({ queries: deep.queries, itemsRead: deep.itemsRead }).toEqual({ queries: 1, itemsRead: 11 });
  });

  it('deep page by offset: offset + limit + 1 items (why offset is capped and cursor recommended)', async () => {
    const { itemsRead, page } = await measure({ limit: '10', offset: '600' });
    expect(page.offset).toBe(600);
    expect(itemsRead).toBe(611);
  });

  it('total_count without a counter item: a Select COUNT that reads the partition', async () => {
    const { itemsRead, queries, page } = await measure({ limit: '10', total_count: 'true' });
    expect(page.total_count).toBe(1000);
    expect(queries).toBe(2);
    expect(itemsRead).toBe(11 + 1000);
  });

  it('a source with a counter: total_count costs no extra Query', async () => {
    reads.reset();
    const counted = querySource(db, tableName, { indexName: 'GSI1', partition: BIG, count: async () => 1000 });
    const page = await listCollection({ spec, source: counted, params: parseListParams(spec, { total_count: 'true' }), cursorKey: key });
    expect(page.total_count).toBe(1000);
    expect({ queries: reads.queries, itemsRead: reads.itemsRead }).toEqual({ queries: 1, itemsRead: 11 });
  });

  it('general path (q or another sort): reads the whole collection once, counts for free', async () => {
    const { itemsRead, page } = await measure({ q: '(client_type=spa)', sort: 'client_name', total_count: 'true' });
    expect(page.total_count).toBe(334);
    expect(itemsRead).toBe(1000);
  });
});

describe('pagedSource: a repository listPage/listAll/count plugged in', () => {
  // The shape of shared/store/core/reads/collections.ts; each call returns at most 4 items, as DynamoDB does
  // when a page hits 1 MB, so the adapter must keep asking.
  const repo = {
    listPage: async (req: { limit: number; exclusiveStartKey?: Record<string, unknown>; descending?: boolean }) => {
      const { items, lastEvaluatedKey } = await queryPage(db, tableName, {
        indexName: 'GSI1',
        partition: T1,
        limit: Math.min(req.limit, 4),
        descending: req.descending,
        exclusiveStartKey: req.exclusiveStartKey as Record<string, string> | undefined,
      });
      return { items: items.map(stripKeys), ...(lastEvaluatedKey ? { lastEvaluatedKey } : {}) };
    },
    count: async () => 57,
  };
  const src = pagedSource({
    id: T1,
    ...repo,
    keyOf: (r) => ({ PK: `CLIENT#${String(r.id)}`, SK: 'CLIENT', GSI1PK: T1, GSI1SK: String(r.id) }),
    view: ({ client_secret: _secret, type: _type, ...rest }) => rest,
  });
  const run = (query: Record<string, string>) =>
    listCollection({ spec, source: src, params: parseListParams(spec, query), cursorKey: key });

  it('walks by cursor in id order, both directions, limit+1 read per page', async () => {
    for (const [query, expected] of [
      [{}, allIds],
      [{ sort: 'created_at:desc' }, [...allIds].reverse()],
    ] as const) {
      const seen: unknown[] = [];
      let page = await run({ ...query, limit: '10', total_count: 'true' });
      expect(page.total_count).toBe(57);
      for (;;) {
        seen.push(...ids(page));
        if (!page.next_cursor) break;
        reads.reset();
        page = await run({ ...query, limit: '10', cursor: page.next_cursor });
        expect(reads.itemsRead).toBeLessThanOrEqual(11);
      }
      expect(seen).toEqual(expected);
    }
  });

  it('filters on the view: secrets are not there to match', async () => {
    const page = await run({ q: '(client_type=spa)', fields: 'id,client_secret', limit: '2' });
    expect(page.items).toEqual([{ id: allIds[0] }, { id: allIds[3] }]);
  });
});

describe('a partition whose sort key is not the id (link lists)', () => {
  it('sortKeyIsId: false takes the general path: created order by cursor, the partition read per page', async () => {
    const links = querySource(db, tableName, { indexName: 'GSI1', partition: T1, sortKeyIsId: false });
    expect(links.page).toBeUndefined();
    const seen: unknown[] = [];
    let cursor: string | undefined;
    do {
      reads.reset();
      const params = parseListParams(spec, cursor ? { cursor } : {});
      const page = await listCollection({ spec, source: links, params, cursorKey: key });
      expect(reads.itemsRead).toBe(57);
      seen.push(...ids(page));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(allIds);
  });
});

describe('queryPage', () => {
  it('follows 1 MB pages until it has `limit` items', async () => {
    // ~40 KB items: 1 MB holds ~25, so 60 items need three requests.
    const fat: Record<string, unknown>[] = makeClients(60).map((c) => ({ ...c, client_description: 'x'.repeat(40_000) }));
    await putCollection(db, tableName, 'TENANT#fat#CLIENTS', fat);
    reads.reset();
    const { items, lastEvaluatedKey } = await queryPage(db, tableName, { indexName: 'GSI1', partition: 'TENANT#fat#CLIENTS', limit: 60 });
    expect(items.map((i) => i.id)).toEqual(fat.map((c) => c.id));
    expect(reads.queries).toBeGreaterThan(1);
    const last = fat.at(-1)!.id;
    expect(lastEvaluatedKey).toEqual({ PK: `CLIENT#${last}`, SK: 'CLIENT', GSI1PK: 'TENANT#fat#CLIENTS', GSI1SK: last });
    const rest = await queryPage(db, tableName, {
      indexName: 'GSI1',
      partition: 'TENANT#fat#CLIENTS',
      exclusiveStartKey: lastEvaluatedKey,
    });
    expect(rest.items).toEqual([]);
    expect(rest.lastEvaluatedKey).toBeUndefined();
  });

  it('narrows to a sort-key prefix of the table', async () => {
    const { items } = await queryPage(db, tableName, { partition: `CLIENT#${String(allIds[0])}`, sortKeyPrefix: 'CLI' });
    expect(items.map((i) => i.id)).toEqual([allIds[0]]);
    const none = await queryPage(db, tableName, { partition: `CLIENT#${String(allIds[0])}`, sortKeyPrefix: 'RESOURCE#' });
    expect(none.items).toEqual([]);
  });
});
