import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourcesFixture, resourcesFixture } from '../../support/management/resources-fixture.ts';

/** Spec §4.1 / docs/contract.md §3 on each of the three lists of this area (docs/lists.md is the grammar). */
let fx: ResourcesFixture;
const TYPE = 'list-test';
let resources: Record<string, any>[];
let scoped: Record<string, any>;
let scopes: Record<string, any>[];
let clientIds: string[];

beforeAll(async () => {
  fx = await resourcesFixture();
  resources = [];
  for (const [i, name] of ['delta', 'Alpha', 'charlie', 'bravo', 'echo'].entries()) {
    resources.push(
      await fx.createResource({
        resource_type: TYPE,
        resource_name: name,
        ...(i % 2 === 0 ? { resource_description: `even ${i}` } : {}),
      }),
    );
  }
  scoped = resources[0]!;
  scopes = [];
  for (const name of ['write:b', 'read:a', 'delete:c', 'admin']) scopes.push(await fx.createScope(scoped.id, name, `about ${name}`));
  clientIds = [];
  for (let i = 0; i < 5; i++) clientIds.push((await fx.createClient()).id);
  await fx.authorize(scoped.id, clientIds.slice(0, 3)); // one transaction: one created_at
  await fx.authorize(scoped.id, [clientIds[3]!]);
  await fx.authorize(scoped.id, [clientIds[4]!]);
});
afterAll(async () => fx?.stop());

const q = (term: string) => `q=${encodeURIComponent(term)}`;
const ids = (body: any) => (body.items as any[]).map((i) => i.id);
const get = async (path: string) => {
  const res = await fx.call('GET', path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** Every page by cursor and by offset gives the same sequence as one big page. */
async function expectPaging(path: string, sep: string, expected: string[]) {
  const all = await get(`${path}${sep}limit=100`);
  expect(ids(all)).toEqual(expected);
  const byCursor: string[] = [];
  let page = await get(`${path}${sep}limit=2`);
  for (;;) {
    byCursor.push(...ids(page));
    expect(page.count).toBe(page.items.length);
    if (!page.has_more) {
      expect(page).not.toHaveProperty('next_cursor');
      break;
    }
    page = await get(`${path}${sep}limit=2&cursor=${page.next_cursor}`);
  }
  expect(byCursor).toEqual(expected);
  const byOffset: string[] = [];
  for (let offset = 0; offset < expected.length; offset += 2) byOffset.push(...ids(await get(`${path}${sep}limit=2&offset=${offset}`)));
  expect(byOffset).toEqual(expected);
  const beyond = await get(`${path}${sep}offset=${expected.length + 5}`);
  expect(beyond).toMatchObject({ count: 0, has_more: false, items: [] });
}

describe('GET /resources', () => {
  it('the envelope of spec §2.1: count, has_more, limit (default 10), offset (default 0), items; total_count only when asked', async () => {
    const body = await get('/resources');
    expect(Object.keys(body).sort()).toEqual(['count', 'has_more', 'items', 'limit', 'offset']);
    expect(body).toMatchObject({ count: 6, has_more: false, limit: 10, offset: 0 }); // 5 + the management API
    expect((await get('/resources?total_count=true')).total_count).toBe(6);
    expect((await get(`/resources?${q(`(resource_type=${TYPE})`)}&total_count=true&limit=1`)).total_count).toBe(5);
  });

  it('default order is created_date:asc; cursor and offset paging agree (fast path)', async () => {
    const all = await get('/resources?limit=100');
    const expected = ids(all);
    expect(expected.slice(1)).toEqual(resources.map((r) => r.id));
    await expectPaging('/resources', '?', expected);
    await expectPaging('/resources?sort=created_date:desc', '&', [...expected].reverse());
  });

  it('q on each scalar attribute', async () => {
    const r = resources[1]!;
    const terms = [
      `(id=${r.id})`,
      `(resource_name=Alpha)`,
      `(resource_type=${TYPE}) and (resource_name=Alpha)`,
      `(created_date=${r.created_date})`,
      `(updated_date=${r.updated_date})`,
      `(resource_name=Alpha) and (created_by=${fx.svc.clientId})`,
      `(resource_name=Alpha) and (updated_by=${fx.svc.clientId})`,
      `(resource_name=Alpha) and (tenant_id=${r.tenant_id})`,
      `(resource_type=${TYPE}) and (resource_description=null) and (resource_name=Alpha)`,
    ];
    for (const term of terms) expect(ids(await get(`/resources?${q(term)}`)), term).toEqual([r.id]);
    expect(ids(await get(`/resources?${q('(resource_description=even 2)')}`))).toEqual([resources[2]!.id]);
    expect((await get(`/resources?${q('(resource_name=alpha)')}`)).count).toBe(0); // case-sensitive
  });

  it('sort on each scalar attribute, with paging on the general path', async () => {
    const base = `/resources?${q(`(resource_type=${TYPE})`)}`;
    const byName = [...resources].sort((a, b) => a.resource_name.toLowerCase().localeCompare(b.resource_name.toLowerCase()));
    await expectPaging(
      `${base}&sort=resource_name`,
      '&',
      byName.map((r) => r.id),
    );
    expect(ids(await get(`${base}&sort=resource_name:desc`))).toEqual(byName.map((r) => r.id).reverse());
    expect(ids(await get(`${base}&sort=resource_name+desc`))).toEqual(byName.map((r) => r.id).reverse());
    for (const attr of [
      'id',
      'tenant_id',
      'resource_type',
      'resource_description',
      'created_by',
      'created_date',
      'updated_by',
      'updated_date',
    ]) {
      expect((await get(`${base}&sort=${attr}:desc`)).count, attr).toBe(5);
    }
    // missing values sort last ascending (docs/lists.md §3)
    const byDescription = ids(await get(`${base}&sort=resource_description`));
    expect(byDescription.slice(3).sort()).toEqual([resources[1]!.id, resources[3]!.id].sort());
  });

  it('expand=all: the nested client links carry client_data, as GET /resources/{id}/clients?expand=all does (spec §2.9)', async () => {
    const expanded = await get(`/resources?${q(`(id=${scoped.id})`)}&expand=all`);
    const linkList = await get(`/resources/${scoped.id}/clients?expand=all&limit=100`);
    expect(expanded.items[0].clients).toEqual(linkList.items);
    expect(expanded.items[0].clients[0].client_data).toMatchObject({
      id: expanded.items[0].clients[0].client_id,
      client_name: expect.any(String),
    });
    expect(expanded.items[0].clients[0].client_data).not.toHaveProperty('client_secret');
    const one = await get(`/resources/${scoped.id}?expand=all`);
    expect(one.clients).toEqual(linkList.items);
  });

  it('fields restricts every item; expand=all adds scopes and clients; both combine', async () => {
    const body = await get(`/resources?${q(`(id=${scoped.id})`)}&fields=id,resource_name`);
    expect(body.items).toEqual([{ id: scoped.id, resource_name: 'delta' }]);
    const expanded = await get(`/resources?${q(`(id=${scoped.id})`)}&expand=all`);
    expect(expanded.items[0].scopes.map((s: any) => s.scope_name)).toEqual(['write:b', 'read:a', 'delete:c', 'admin']);
    expect(expanded.items[0].clients).toHaveLength(5);
    expect(expanded.items[0].clients[0]).toMatchObject({ resource_id: scoped.id, authorized: true });
    expect(expanded.items[0].aggregations).toMatchObject({ scopes: 4, clients: 5 });
    const both = await get(`/resources?${q(`(id=${scoped.id})`)}&expand=all&fields=id,scopes`);
    expect(Object.keys(both.items[0])).toEqual(['id', 'scopes']);
    const plain = await get(`/resources?${q(`(id=${scoped.id})`)}`);
    expect(plain.items[0]).not.toHaveProperty('scopes');
    expect(plain.items[0]).not.toHaveProperty('clients');
  });

  it('object attributes cannot be filtered or sorted (400)', async () => {
    expect((await fx.call('GET', `/resources?${q('(resource_metadata=x)')}`)).status).toBe(400);
    expect((await fx.call('GET', '/resources?sort=aggregations')).status).toBe(400);
  });

  it('a cursor from another query is refused (400)', async () => {
    const first = await get('/resources?limit=1');
    const res = await fx.call('GET', `/resources?limit=1&sort=resource_name&cursor=${first.next_cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^query\.cursor: /);
  });
});

describe('GET /resources/{id}/scopes', () => {
  const path = () => `/resources/${scoped.id}/scopes`;

  it('envelope, default creation order, paging by cursor and offset, total_count', async () => {
    const body = await get(`${path()}?total_count=true`);
    expect(body).toMatchObject({ total_count: 4, count: 4, has_more: false, limit: 10, offset: 0 });
    expect(body.items[0]).toEqual({
      id: scopes[0]!.id,
      tenant_id: scoped.tenant_id,
      resource_id: scoped.id,
      scope_name: 'write:b',
      scope_description: 'about write:b',
      created_by: fx.svc.clientId,
      created_at: expect.any(String),
      updated_by: fx.svc.clientId,
      updated_at: expect.any(String),
    });
    await expectPaging(
      path(),
      '?',
      scopes.map((s) => s.id),
    );
  });

  it('q and sort on each attribute, fields', async () => {
    const s = scopes[1]!;
    for (const term of [
      `(id=${s.id})`,
      '(scope_name=read:a)',
      '(scope_description="about read:a")',
      `(created_at=${s.created_at})`,
      `(updated_at=${s.updated_at})`,
    ]) {
      expect(ids(await get(`${path()}?${q(term)}`)), term).toEqual([s.id]);
    }
    for (const term of [
      `(resource_id=${scoped.id})`,
      `(tenant_id=${scoped.tenant_id})`,
      `(created_by=${fx.svc.clientId})`,
      `(updated_by=${fx.svc.clientId})`,
    ]) {
      expect((await get(`${path()}?${q(term)}`)).count, term).toBe(4);
    }
    const names = (b: any) => (b.items as any[]).map((i) => i.scope_name);
    expect(names(await get(`${path()}?sort=scope_name`))).toEqual(['admin', 'delete:c', 'read:a', 'write:b']);
    expect(names(await get(`${path()}?sort=scope_name:desc&limit=2`))).toEqual(['write:b', 'read:a']);
    await expectPaging(
      `${path()}?sort=scope_name`,
      '&',
      [3, 2, 1, 0].map((i) => scopes[i]!.id),
    );
    for (const attr of ['id', 'tenant_id', 'resource_id', 'scope_description', 'created_by', 'created_at', 'updated_by', 'updated_at']) {
      expect((await get(`${path()}?sort=${attr}:desc`)).count, attr).toBe(4);
    }
    expect((await get(`${path()}?fields=scope_name&limit=1`)).items).toEqual([{ scope_name: 'write:b' }]);
  });
});

describe('GET /resources/{id}/clients', () => {
  const path = () => `/resources/${scoped.id}/clients`;

  it('links with authorized: true, in creation order, paged by cursor and offset, total_count', async () => {
    const body = await get(`${path()}?total_count=true`);
    expect(body).toMatchObject({ total_count: 5, count: 5, has_more: false });
    expect(body.items.map((l: any) => l.client_id)).toEqual(clientIds);
    expect(body.items[0]).toEqual({
      id: expect.any(String),
      tenant_id: scoped.tenant_id,
      resource_id: scoped.id,
      client_id: clientIds[0],
      authorized: true,
      created_by: fx.svc.clientId,
      created_at: expect.any(String),
      updated_by: fx.svc.clientId,
      updated_at: expect.any(String),
    });
    await expectPaging(path(), '?', ids(body));
  });

  it('q and sort on each attribute; fields; expand=all adds client_data (without the secret)', async () => {
    const all = (await get(path())).items as any[];
    const link = all[3];
    for (const term of [
      `(id=${link.id})`,
      `(client_id=${link.client_id})`,
      `(created_at=${link.created_at})`,
      `(updated_at=${link.updated_at})`,
    ]) {
      expect(ids(await get(`${path()}?${q(term)}`)), term).toEqual([link.id]);
    }
    for (const term of [
      '(authorized=true)',
      `(resource_id=${scoped.id})`,
      `(tenant_id=${scoped.tenant_id})`,
      `(created_by=${fx.svc.clientId})`,
      `(updated_by=${fx.svc.clientId})`,
    ]) {
      expect((await get(`${path()}?${q(term)}`)).count, term).toBe(5);
    }
    expect((await get(`${path()}?${q('(authorized=false)')}`)).count).toBe(0);
    const desc = await get(`${path()}?sort=client_id:desc`);
    expect(desc.items.map((l: any) => l.client_id)).toEqual([...clientIds].sort().reverse());
    for (const attr of ['id', 'tenant_id', 'resource_id', 'authorized', 'created_by', 'created_at', 'updated_by', 'updated_at']) {
      expect((await get(`${path()}?sort=${attr}`)).count, attr).toBe(5);
    }
    expect((await get(`${path()}?fields=client_id&limit=1`)).items).toEqual([{ client_id: clientIds[0] }]);
    const expanded = await get(`${path()}?expand=all&limit=2`);
    const data = expanded.items[0].client_data;
    expect(data).toMatchObject({
      id: clientIds[0],
      client_name: expect.any(String),
      is_global: true,
      aggregations: { client_id: clientIds[0], resources: 1 },
    });
    expect(data).not.toHaveProperty('client_secret');
    expect(data).not.toHaveProperty('secret_hash');
    expect((await get(`${path()}?limit=1`)).items[0]).not.toHaveProperty('client_data');
    expect((await get(`${path()}?expand=all&fields=client_data&limit=1`)).items[0]).toEqual({
      client_data: expect.objectContaining({ id: clientIds[0] }),
    });
  });
});
