import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { arraySource, type CollectionSource } from '#shared/lists/collection-source.ts';
import { clientsCollection as spec } from '#shared/lists/collections/clients.ts';
import { type ListEnvelope, listCollection } from '#shared/lists/list-collection.ts';
import { LIST_LIMITS } from '#shared/lists/list-params.ts';
import { parseListParams } from '#shared/lists/parse-list-params.ts';
import { makeClients } from '../support/store/list-fixtures.ts';

type Row = Record<string, unknown>;
const key = randomBytes(32);
const clients = makeClients(57);
const ids = (e: ListEnvelope) => e.items.map((i) => i.id);
const allIds = clients.map((c) => c.id);

const list = (query: Record<string, string>, source: CollectionSource<Row> = arraySource('TENANT#t1#CLIENTS', clients)) =>
  listCollection({ spec, source, params: parseListParams(spec, query), cursorKey: key });

async function rejects(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isAppError(e) || e.status !== 400) throw new Error(`expected a 400, got ${String(e)}`);
  return e.message;
}

/** Walks every page by cursor; returns the ids in order and the pages' offsets. */
async function walk(query: Record<string, string>, source?: CollectionSource<Row>) {
  const seen: unknown[] = [];
  const offsets: number[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 100; n++) {
    const page = await list(cursor ? { ...query, cursor } : query, source);
    seen.push(...ids(page));
    offsets.push(page.offset);
    expect(page.has_more).toBe(page.next_cursor !== undefined);
    if (!page.next_cursor) return { seen, offsets };
    cursor = page.next_cursor;
  }
  throw new Error('did not end');
}

describe('envelope (spec §2.1)', () => {
  it('first page in creation order, with has_more and next_cursor', async () => {
    const page = await list({});
    expect(Object.keys(page)).toEqual(['count', 'has_more', 'limit', 'offset', 'items', 'next_cursor']);
    expect(page).toMatchObject({ count: 10, has_more: true, limit: 10, offset: 0 });
    expect(ids(page)).toEqual(allIds.slice(0, 10));
  });

  it('total_count only when asked, first in the envelope', async () => {
    const page = await list({ total_count: 'true' });
    expect(Object.keys(page)[0]).toBe('total_count');
    expect(page.total_count).toBe(57);
    expect('total_count' in (await list({ total_count: 'false' }))).toBe(false);
  });

  it('offset beyond the end: no items, has_more false (spec §4.1)', async () => {
    const queries: Record<string, string>[] = [
      { offset: '57' },
      { offset: '500' },
      { offset: '60', q: '(client_type=spa)' },
      { offset: '99', sort: 'client_name' },
    ];
    for (const query of queries) {
      const page = await list(query);
      expect(page).toMatchObject({ count: 0, items: [], has_more: false, offset: Number(query.offset) });
      expect(page.next_cursor).toBeUndefined();
    }
  });

  it('limit above the count returns what there is', async () => {
    const page = await list({ limit: '100' });
    expect(page).toMatchObject({ count: 57, has_more: false, limit: 100 });
    expect(ids(page)).toEqual(allIds);
  });

  it('the last partial page', async () => {
    const page = await list({ offset: '50', limit: '10' });
    expect(page).toMatchObject({ count: 7, has_more: false, offset: 50 });
    expect(ids(page)).toEqual(allIds.slice(50));
  });
});

describe('sort', () => {
  const byName = (dir: 1 | -1) => (a: Row, b: Row) => {
    const x = String(a.client_name).toLowerCase();
    const y = String(b.client_name).toLowerCase();
    return x < y ? -dir : x > y ? dir : 0;
  };

  it('asc and desc on a string, case-insensitively', async () => {
    expect(ids(await list({ sort: 'client_name:asc', limit: '100' }))).toEqual([...clients].sort(byName(1)).map((c) => c.id));
    expect(ids(await list({ sort: 'client_name desc', limit: '100' }))).toEqual([...clients].sort(byName(-1)).map((c) => c.id));
  });

  it('created_at desc = newest first, ties (same ms) broken by id in the same direction', async () => {
    const page = await list({ sort: 'created_at:desc', limit: '100' });
    expect(ids(page)).toEqual([...allIds].reverse());
  });

  it('multi-key: boolean then string desc, ties by id', async () => {
    const expected = [...clients].sort((a, b) => Number(a.is_public) - Number(b.is_public) || byName(-1)(a, b)).map((c) => c.id);
    expect(ids(await list({ sort: 'is_public,client_name:desc', limit: '100' }))).toEqual(expected);
  });

  it('missing values last ascending, first descending', async () => {
    const missing = clients.filter((c) => c.client_description === undefined).map((c) => c.id);
    const asc = ids(await list({ sort: 'client_description', limit: '100' }));
    expect(asc.slice(-missing.length)).toEqual(missing);
    const desc = ids(await list({ sort: 'client_description:desc', limit: '100' }));
    expect(desc.slice(0, missing.length)).toEqual([...missing].reverse());
  });
});

describe('q', () => {
  it('one term: string, boolean, timestamp (a date = its UTC day)', async () => {
    expect(ids(await list({ q: '(client_type=spa)', limit: '100' }))).toEqual(
      clients.filter((c) => c.client_type === 'spa').map((c) => c.id),
    );
    expect(ids(await list({ q: '(is_public=false)', limit: '100' }))).toEqual(clients.filter((c) => !c.is_public).map((c) => c.id));
    expect((await list({ q: '(created_at=2025-03-01)', total_count: 'true' })).total_count).toBe(57);
    expect((await list({ q: `(created_at=${String(clients[3]?.created_at)})` })).items).toEqual([clients[3]]);
  });

  it('several terms are ANDed; total_count counts the matches', async () => {
    const page = await list({ q: '(client_type=spa) and (is_public=true)', total_count: 'true', limit: '100' });
    const expected = clients.filter((c) => c.client_type === 'spa' && c.is_public);
    expect(page.total_count).toBe(expected.length);
    expect(ids(page)).toEqual(expected.map((c) => c.id));
  });

  it('no match: empty page', async () => {
    expect(await list({ q: '(client_name="nobody")', total_count: 'true' })).toEqual({
      total_count: 0,
      count: 0,
      has_more: false,
      limit: 10,
      offset: 0,
      items: [],
    });
  });
});

describe('fields and expand', () => {
  const withChildren = clients.map((c) => ({ ...c, resources: [{ id: 'r' }], permissions: [] }));
  const src = () => arraySource('TENANT#t1#CLIENTS', withChildren);

  it('fields keeps only the named attributes', async () => {
    const page = await list({ fields: 'id,client_name', limit: '3' });
    expect(page.items).toEqual(clients.slice(0, 3).map((c) => ({ id: c.id, client_name: c.client_name })));
  });

  it('children only with expand=all', async () => {
    expect((await list({ limit: '1' }, src())).items[0]).not.toHaveProperty('resources');
    expect((await list({ limit: '1', expand: 'all' }, src())).items[0]).toMatchObject({ resources: [{ id: 'r' }], permissions: [] });
  });

  it('fields applies after expand: fields=id,resources&expand=all keeps the children', async () => {
    expect((await list({ fields: 'id,resources', expand: 'all', limit: '1' }, src())).items[0]).toEqual({
      id: clients[0]?.id,
      resources: [{ id: 'r' }],
    });
    expect((await list({ fields: 'id,resources', limit: '1' }, src())).items[0]).toEqual({ id: clients[0]?.id });
  });

  it('attributes the spec does not declare never leave (fail closed)', async () => {
    const stored = clients.map((c) => ({ ...c, secret_hash: 'h', secret_sealed: 's', version: 3, links_version: 1 }));
    const page = await list({ limit: '1' }, arraySource('TENANT#t1#CLIENTS', stored));
    expect(page.items[0]).toEqual(clients[0]);
  });

  it('the expand hook loads children for the returned page only, and only when wanted', async () => {
    const expand = vi.fn(async (rs: Row[]) => rs.map((r) => ({ ...r, resources: [] })));
    const source = arraySource('TENANT#t1#CLIENTS', clients, { expand });
    await list({ limit: '5', offset: '3', expand: 'all', sort: 'client_name' }, source);
    expect(expand).toHaveBeenCalledOnce();
    expect(expand.mock.calls[0]?.[0]).toHaveLength(5);
    await list({ limit: '5' }, source);
    await list({ limit: '5', expand: 'all', fields: 'id,client_name' }, source);
    expect(expand).toHaveBeenCalledOnce();
  });
});

describe('cursor', () => {
  it.each([
    ['default order (fast path)', {}],
    ['newest first (fast path, descending)', { sort: 'created_at:desc' }],
    ['sorted by name (general path)', { sort: 'client_name:desc,created_at' }],
    ['filtered (general path)', { q: '(is_public=true)' }],
  ])('walks the whole list without gaps or duplicates: %s', async (_, query) => {
    const all = ids(await list({ ...query, limit: '100' }));
    const { seen, offsets } = await walk({ ...query, limit: '10' });
    expect(seen).toEqual(all);
    expect(offsets).toEqual(offsets.map((_, i) => i * 10));
  });

  it('a source without page() takes the general path, cursors still work', async () => {
    const { page: _page, ...noPage } = arraySource('LINKS#c1', clients);
    const { seen } = await walk({ limit: '7' }, noPage);
    expect(seen).toEqual(allIds);
  });

  it('limit may change between pages', async () => {
    const first = await list({ limit: '5' });
    const next = await list({ limit: '20', cursor: String(first.next_cursor) });
    expect(ids(next)).toEqual(allIds.slice(5, 25));
    expect(next.offset).toBe(5);
  });

  it('a tampered cursor is a 400 naming query.cursor', async () => {
    for (const query of [{}, { sort: 'client_name' }] as Record<string, string>[]) {
      const cursor = String((await list(query)).next_cursor);
      const flip = (t: string, i: number) => `${t.slice(0, i)}${t[i] === 'A' ? 'B' : 'A'}${t.slice(i + 1)}`;
      const v1 = `${Buffer.from(JSON.stringify({ p: 0, k: { id: allIds[0] } })).toString('base64url')}.${'A'.repeat(43)}`;
      const bad = [
        flip(cursor, 0),
        flip(cursor, cursor.length >> 1),
        flip(cursor, cursor.length - 1),
        cursor.slice(0, -2),
        `${cursor}.x`,
        `${cursor}.`,
        v1,
        'garbage',
      ];
      for (const c of bad) expect(await rejects(list({ ...query, cursor: c }))).toMatch(/^query\.cursor: /);
    }
  });

  it('a cursor from another tenant, list, query or key is a 400', async () => {
    const cursor = String((await list({})).next_cursor);
    expect(await rejects(list({ cursor }, arraySource('TENANT#t2#CLIENTS', clients)))).toMatch(/^query\.cursor: /);
    expect(await rejects(list({ cursor, sort: 'created_at:desc' }))).toMatch(/^query\.cursor: /);
    expect(await rejects(list({ cursor, q: '(is_public=true)' }))).toMatch(/^query\.cursor: /);
    const other = { ...spec, name: 'resources' };
    const params = parseListParams(spec, { cursor });
    await expect(
      listCollection({ spec: other, source: arraySource('TENANT#t1#CLIENTS', clients), params, cursorKey: key }),
    ).rejects.toThrow(/query\.cursor/);
    await expect(
      listCollection({ spec, source: arraySource('TENANT#t1#CLIENTS', clients), params, cursorKey: randomBytes(32) }),
    ).rejects.toThrow(/query\.cursor/);
    // Same query written differently is the same query: sort=created_at:asc is the default.
    expect((await list({ cursor, sort: 'created_at' })).offset).toBe(10);
  });
});

describe('general path cap', () => {
  it(`refuses to filter or sort more than ${LIST_LIMITS.maxScanItems} records, naming the parameter`, async () => {
    const all = vi.fn(async ({ max }: { max: number }) => Array.from({ length: max + 1 }, (_, i) => ({ id: String(i) })));
    const source: CollectionSource<Row> = { id: 'big', all };
    expect(await rejects(list({ q: '(client_type=spa)' }, source))).toMatch(/^query\.q: .*more than 20000/);
    expect(await rejects(list({ sort: 'client_name' }, source))).toMatch(/^query\.sort: /);
    expect(all).toHaveBeenCalledWith({ max: LIST_LIMITS.maxScanItems });
  });
});
