import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../../support/management/clients-fixture.ts';
import { type TenantsFixture, tenantsFixture } from '../../support/management/tenants-fixture.ts';

let fx: TenantsFixture;
const made: Record<string, any>[] = [];
beforeAll(async () => {
  fx = await tenantsFixture();
  for (const [name, region] of [
    ['charlie', 'eu'],
    ['alpha', 'us'],
    ['bravo', 'eu'],
  ]) {
    made.push(
      await fx.createTenantApi({
        tenant_name: name,
        tenant_description: `${name} desc`,
        tenant_metadata: [{ key: 'region', value: region! }],
      }),
    );
  }
});
afterAll(async () => fx?.stop());

const ids = (body: any) => body.items.map((t: any) => t.id);
const q = (s: string) => encodeURIComponent(s);

describe('GET /tenants: the list grammar (docs/contract.md §3)', () => {
  it('default: created_at ascending, the default tenant first; the envelope of every list', async () => {
    const res = await fx.call('GET', '/tenants?total_count=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({ total_count: 4, count: 4, has_more: false, limit: 10, offset: 0 });
    expect(ids(res.body)).toEqual([DEFAULT_TENANT, ...made.map((t) => t.id)]);
    expect(res.body.items[1]).toEqual(made[0]);
  });

  it('q filters by tenant_name and is_default; sort orders by name', async () => {
    const byName = await fx.call('GET', `/tenants?q=${q('(tenant_name=alpha)')}`);
    expect(byName.status).toBe(200);
    expect(ids(byName.body)).toEqual([made[1]!.id]);
    const notDefault = await fx.call('GET', `/tenants?q=${q('(is_default=false)')}&sort=tenant_name:desc`);
    expect(ids(notDefault.body)).toEqual([made[0]!.id, made[2]!.id, made[1]!.id]);
  });

  it('fields keeps only the named attributes', async () => {
    const res = await fx.call('GET', '/tenants?fields=id,tenant_name&limit=1');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([{ id: DEFAULT_TENANT, tenant_name: 'default' }]);
    const one = await fx.call('GET', `/tenants/${made[0]!.id}?fields=tenant_metadata`);
    expect(one.body).toEqual({ tenant_metadata: [{ key: 'region', value: 'eu' }] });
  });

  it('offset and limit page; a cursor continues where the page ended', async () => {
    const first = await fx.call('GET', '/tenants?limit=2');
    expect(first.body).toMatchObject({ count: 2, has_more: true });
    expect(typeof first.body.next_cursor).toBe('string');
    const next = await fx.call('GET', `/tenants?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(next.status).toBe(200);
    expect([...ids(first.body), ...ids(next.body)]).toEqual([DEFAULT_TENANT, ...made.map((t) => t.id)]);
    const byOffset = await fx.call('GET', '/tenants?limit=2&offset=2');
    expect(ids(byOffset.body)).toEqual(ids(next.body));
  });

  it('expand=all is accepted (a Tenant has no children); bad parameters are 400 naming them', async () => {
    expect((await fx.call('GET', '/tenants?expand=all')).status).toBe(200);
    for (const [query, field] of [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['fields=nope', 'query.fields'],
      ['sort=nope', 'query.sort'],
      [`q=${q('(nope=1)')}`, 'query.q'],
      ['expand=some', 'query.expand'],
      ['cursor=tampered', 'query.cursor'],
    ]) {
      const res = await fx.call('GET', `/tenants?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.message, query).toContain(field);
    }
  });
});
