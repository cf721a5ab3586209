import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientsFixture, clientsFixture } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
/** Every client of the tenant as GET /clients/{id} shows it, Default Client included, in creation order. */
let all: Record<string, any>[];

const SPECS: Record<string, unknown>[] = [
  { client_name: 'alpha', client_type: 'spa', is_public: true, client_description: 'first' },
  { client_name: 'Beta', client_type: 'native', is_first_party: true },
  { client_name: 'beta', client_type: 'regular_web', is_global: false, client_description: 'x' },
  { client_name: 'gamma', client_type: 'non_interactive', client_secret_expires_at: '2099-01-01T00:00:00.000Z' },
  { client_name: 'delta', client_type: 'spa', is_public: true, is_first_party: true },
  { client_name: 'Epsilon (prod)', client_type: 'regular_web', client_description: 'x' },
  { client_name: 'zeta', client_type: 'native', is_global: false },
  { client_name: 'eta', client_type: 'regular_web' },
  { client_name: 'theta', client_type: 'regular_web', is_first_party: true },
  { client_name: 'iota', client_type: 'spa', is_public: true },
  { client_name: 'kappa', client_type: 'non_interactive' },
];

beforeAll(async () => {
  fx = await clientsFixture();
  for (const spec of SPECS) await fx.createClient(spec);
  all = (await fx.call('GET', '/clients?limit=100', { token: await fx.svc.managementToken('read:clients') })).body.items;
});
afterAll(async () => fx?.stop());

const list = async (query: string, token?: string) => {
  const res = await fx.call('GET', `/clients?${query}`, token ? { token } : { token: await fx.svc.managementToken('read:clients') });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const ids = (items: readonly Record<string, any>[]): string[] => items.map((i) => i.id as string);

describe('GET /clients: the envelope, offset/limit, total_count, cursor (spec §2.1, §4.1, docs/contract.md §3)', () => {
  it('lists the tenant in creation order, default limit 10', async () => {
    expect(all).toHaveLength(12);
    expect(ids(all)).toEqual([...ids(all)].sort());
    const page = await list('');
    expect(Object.keys(page).sort()).toEqual(['count', 'has_more', 'items', 'limit', 'next_cursor', 'offset']);
    expect(page).toMatchObject({ count: 10, has_more: true, limit: 10, offset: 0 });
    expect(ids(page.items)).toEqual(ids(all).slice(0, 10));
    expect(page.items[0]).toEqual(all[0]);
  });

  it('total_count=true adds the count; offset/limit slice; an offset past the end gives no items', async () => {
    expect(await list('total_count=true&offset=3&limit=4')).toMatchObject({
      total_count: 12,
      count: 4,
      offset: 3,
      limit: 4,
      has_more: true,
    });
    expect(ids((await list('offset=3&limit=4')).items)).toEqual(ids(all).slice(3, 7));
    const end = await list('offset=10&limit=5');
    expect(end).toMatchObject({ count: 2, has_more: false });
    expect(end.next_cursor).toBeUndefined();
    expect(await list('offset=50')).toMatchObject({ count: 0, items: [], has_more: false });
  });

  it('a cursor is opaque: nothing of the table (keys, ids, partition names) shows in it (docs/contract.md §8)', async () => {
    const page = await list('limit=2');
    const decoded = Buffer.from(page.next_cursor, 'base64url').toString('latin1');
    for (const clear of [page.items[1].id, 'CLIENT', 'TENANT#', 'GSI1', '"p"']) expect(decoded).not.toContain(clear);
    expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('cursor walks every record exactly once, also newest first', async () => {
    for (const sort of ['', 'created_at:desc']) {
      const seen: string[] = [];
      let cursor = '';
      for (let i = 0; i < 10; i++) {
        const page = await list(`limit=5&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...ids(page.items));
        if (!page.has_more) break;
        cursor = page.next_cursor;
      }
      expect(seen).toEqual(sort ? ids(all).reverse() : ids(all));
    }
  });

  it('a tampered cursor, or one replayed with another q, is 400', async () => {
    const { next_cursor } = await list('limit=2');
    expect(
      (await fx.call('GET', `/clients?cursor=${next_cursor.slice(0, 5)}${next_cursor[5] === 'A' ? 'B' : 'A'}${next_cursor.slice(6)}`))
        .status,
    ).toBe(400);
    expect((await fx.call('GET', `/clients?cursor=${next_cursor}x`)).status).toBe(400);
    expect((await fx.call('GET', `/clients?cursor=${next_cursor}&q=(is_public=true)`)).status).toBe(400);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['offset=-1', 'query.offset'],
    ['total_count=yes', 'query.total_count'],
    ['expand=ALL', 'query.expand'],
    ['fields=id,secret_hash', 'query.fields'],
    ['q=(client_metadata=x)', 'query.q'],
    ['q=(client_secret=abc)', 'query.q'],
    ['q=(is_public=maybe)', 'query.q'],
    ['q=client_name=alpha', 'query.q'],
    ['sort=client_metadata', 'query.sort'],
    ['sort=client_secret', 'query.sort'],
    ['sort=nope:asc', 'query.sort'],
  ])('%s → 400 %s', async (query, param) => {
    const res = await fx.call('GET', `/clients?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message.startsWith(`${param}: `), res.body.message).toBe(true);
  });
});

/** Every attribute `q` and `sort` accept on clients (shared/lists/collections/clients.ts). */
const SCALARS = [
  'id',
  'tenant_id',
  'client_type',
  'client_name',
  'client_secret_expires_at',
  'client_description',
  'is_public',
  'is_first_party',
  'is_global',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
];

const quote = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));

describe('q over each listed attribute (spec §4.1)', () => {
  it.each(SCALARS)('q=(%s=<value of a client>) returns exactly the matching clients', async (attr) => {
    const sample = all.find((c) => c[attr] !== undefined && c[attr] !== null) ?? all[0]!;
    const value = sample[attr];
    const page = await list(
      `limit=100&q=${encodeURIComponent(`(${attr}=${value === undefined || value === null ? 'null' : quote(value)})`)}`,
    );
    const expected = all.filter((c) => (value === undefined || value === null ? c[attr] == null : c[attr] === value));
    // Compared as sets: the general path orders by created_at, `all` is in key (id) order, and the
    // Default Client's id is not a UUIDv7 in tests (see the created_at sort below).
    expect(ids(page.items).sort()).toEqual(ids(expected).sort());
    expect(page.items.length).toBeGreaterThan(0);
  });

  it('terms are ANDed; null matches a missing attribute; total_count counts the matches', async () => {
    const page = await list(`total_count=true&q=${encodeURIComponent('(client_type=spa) and (is_first_party=true)')}`);
    expect(page.items.map((c: any) => c.client_name)).toEqual(['delta']);
    expect(page.total_count).toBe(1);
    const noDescription = await list(`limit=100&q=${encodeURIComponent('(client_description=null)')}`);
    expect(noDescription.items.length).toBe(all.filter((c) => c.client_description === undefined).length);
    expect((await list(`q=${encodeURIComponent('(client_name="Epsilon (prod)")')}`)).items).toHaveLength(1);
  });
});

const compare = (a: unknown, b: unknown): number => {
  if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1; // missing last ascending
  if (typeof a === 'string' && typeof b === 'string')
    return a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
  return Number(a) - Number(b);
};

describe('sort over each listed attribute (spec §4.1)', () => {
  it.each(SCALARS)('sort=%s ascending and descending', async (attr) => {
    // The fast path takes `created_at` order to be id order (UUIDv7, docs/lists.md §6). The test
    // harness gives the Default Client a random (v4) id, created first but sorting anywhere, so it
    // is left out of the creation-time checks (a known gap, see docs/management-clients.md).
    const timeKey = attr === 'created_at';
    const keep = (items: any[]) => (timeKey ? items.filter((c) => c.id !== fx.svc.clientId) : items);
    const asc = keep((await list(`limit=100&sort=${attr}:asc`)).items);
    const desc = keep((await list(`limit=100&sort=${attr}+desc`)).items);
    expect(asc).toHaveLength(timeKey ? 11 : 12);
    for (let i = 1; i < asc.length; i++) expect(compare(asc[i - 1][attr], asc[i][attr]), `${attr} asc at ${i}`).toBeLessThanOrEqual(0);
    for (let i = 1; i < desc.length; i++)
      expect(compare(desc[i - 1][attr], desc[i][attr]), `${attr} desc at ${i}`).toBeGreaterThanOrEqual(-0);
  });

  it('several keys: client_type then client_name descending', async () => {
    const items = (await list('limit=100&sort=client_type,client_name:desc&fields=client_type,client_name')).items;
    const expected = [...items].sort((a: any, b: any) => compare(a.client_type, b.client_type) || -compare(a.client_name, b.client_name));
    expect(items).toEqual(expected);
  });
});

describe('fields, expand and secrets on the list', () => {
  it('fields keeps only the named attributes', async () => {
    const page = await list('fields=id,client_name,aggregations&limit=3');
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(['aggregations', 'client_name', 'id']);
  });

  it('expand=all adds resources and permissions to each item', async () => {
    const page = await list('expand=all&limit=100');
    const byId = new Map<string, any>(page.items.map((c: any) => [c.id, c]));
    expect(byId.get(fx.svc.clientId)).toMatchObject({ resources: [expect.any(Object)], permissions: expect.any(Array) }); // the management API
    expect(byId.get(fx.svc.clientId).permissions.length).toBeGreaterThan(30);
    expect(byId.get(all.find((c) => c.client_name === 'alpha')!.id)).toMatchObject({ resources: [], permissions: [] });
    expect((await list('limit=2')).items[0].resources).toBeUndefined();
  });

  it('client_secret only for read:client_keys (no-store then), never for public clients', async () => {
    const plain = await fx.call('GET', '/clients?limit=100', { token: await fx.svc.managementToken('read:clients') });
    expect(plain.body.items.every((c: any) => c.client_secret === undefined)).toBe(true);
    expect(plain.headers.get('cache-control')).toBeNull();
    const keys = await fx.call('GET', '/clients?limit=100', { token: await fx.svc.managementToken('read:clients read:client_keys') });
    expect(keys.headers.get('cache-control')).toBe('no-store');
    for (const c of keys.body.items) {
      if (c.is_public) expect(c.client_secret).toBeUndefined();
      else expect(c.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect(keys.body.items.find((c: any) => c.id === fx.svc.clientId).client_secret).toBe(fx.svc.clientSecret);
    const projected = await fx.call('GET', '/clients?fields=id', { token: await fx.svc.managementToken('read:clients read:client_keys') });
    expect(projected.headers.get('cache-control')).toBeNull();
  });
});

describe('GET /clients/{id}/resources and /permissions: every list parameter', () => {
  let clientId: string;
  let resourceIds: string[];
  let scopeIds: string[];
  beforeAll(async () => {
    const c = await fx.createClient({ client_name: 'linked' });
    clientId = c.id;
    const resources = [];
    for (let i = 0; i < 12; i++) resources.push(await fx.createResource(['a', 'b', 'c']));
    resourceIds = resources.map((r) => r.id);
    expect((await fx.call('POST', `/clients/${clientId}/resources`, { body: { resources: resourceIds } })).status).toBe(204);
    const grants = resources.slice(0, 4).map((r) => ({ resource_id: r.id, scopes: r.scopes.map((s) => s.id) }));
    expect((await fx.call('POST', `/clients/${clientId}/permissions`, { body: { permissions: grants } })).status).toBe(204);
    scopeIds = resources.slice(0, 4).flatMap((r) => r.scopes.map((s) => s.id));
  });

  it('resources: page, total_count, offset, cursor', async () => {
    const path = `/clients/${clientId}/resources`;
    const first = (await fx.call('GET', `${path}?total_count=true`)).body;
    expect(first).toMatchObject({ total_count: 12, count: 10, has_more: true, offset: 0, limit: 10 });
    const next = (await fx.call('GET', `${path}?cursor=${first.next_cursor}`)).body;
    expect(next).toMatchObject({ count: 2, has_more: false, offset: 10 });
    const got = [...first.items, ...next.items].map((l: any) => l.resource_id);
    expect(new Set(got)).toEqual(new Set(resourceIds));
    expect((await fx.call('GET', `${path}?offset=11`)).body.count).toBe(1);
  });

  it('resources: q, sort, fields, expand', async () => {
    const path = `/clients/${clientId}/resources`;
    const one = (await fx.call('GET', `${path}?q=(resource_id=${resourceIds[5]})`)).body;
    expect(one.items.map((l: any) => l.resource_id)).toEqual([resourceIds[5]]);
    expect((await fx.call('GET', `${path}?q=(client_id=${clientId})&total_count=true`)).body.total_count).toBe(12);
    const sorted = (await fx.call('GET', `${path}?sort=resource_id:desc&limit=100&fields=resource_id`)).body.items;
    expect(sorted).toEqual(
      [...resourceIds]
        .sort()
        .reverse()
        .map((resource_id) => ({ resource_id })),
    );
    const expanded = (await fx.call('GET', `${path}?expand=all&fields=resource_data&limit=1`)).body.items[0];
    expect(Object.keys(expanded)).toEqual(['resource_data']);
    expect((await fx.call('GET', `${path}?q=(resource_data=x)`)).status).toBe(400);
    expect((await fx.call('GET', `${path}?sort=scope_id`)).status).toBe(400);
  });

  it('permissions: page, total_count, cursor, q, sort, fields, expand', async () => {
    const path = `/clients/${clientId}/permissions`;
    const first = (await fx.call('GET', `${path}?total_count=true&limit=5`)).body;
    expect(first).toMatchObject({ total_count: 12, count: 5, has_more: true });
    const seen = [...first.items];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = (await fx.call('GET', `${path}?limit=5&cursor=${cursor}`)).body;
      seen.push(...page.items);
      cursor = page.next_cursor;
    }
    expect(new Set(seen.map((p: any) => p.scope_id))).toEqual(new Set(scopeIds));
    const ofOne = (await fx.call('GET', `${path}?q=(resource_id=${resourceIds[2]})&total_count=true`)).body;
    expect(ofOne.total_count).toBe(3);
    expect((await fx.call('GET', `${path}?q=(scope_id=${scopeIds[7]})`)).body.items.map((p: any) => p.scope_id)).toEqual([scopeIds[7]]);
    const sorted = (await fx.call('GET', `${path}?sort=scope_id:desc&limit=100&fields=scope_id`)).body.items;
    expect(sorted).toEqual(
      [...scopeIds]
        .sort()
        .reverse()
        .map((scope_id) => ({ scope_id })),
    );
    const expanded = (await fx.call('GET', `${path}?expand=all&limit=3&fields=scope_id,scope_data,resource_data`)).body.items;
    for (const p of expanded) {
      expect(p.scope_data.id).toBe(p.scope_id);
      expect(resourceIds).toContain(p.resource_data.id);
    }
  });
});
