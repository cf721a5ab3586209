import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdentityProvidersFixture, identityProvidersFixture } from '../../support/management/identity-providers-fixture.ts';

let fx: IdentityProvidersFixture;
let base: string;
let made: Record<string, any>[];
beforeAll(async () => {
  fx = await identityProvidersFixture();
  const tenant = await fx.createTenantApi();
  base = `/tenants/${tenant.id}/identity-providers`;
  made = [];
  for (const [name, extra] of [
    ['charlie', { enabled: false }],
    ['alpha', { client_secret: 'a-secret' }],
    ['bravo', {}],
  ] as const) {
    made.push(await fx.createProvider(tenant.id, { provider_name: name, ...extra }));
  }
});
afterAll(async () => fx?.stop());

describe('Identity provider lists (docs/contract.md §3, docs/lists.md)', () => {
  it('default order is creation order; total_count is the counter', async () => {
    const res = await fx.call('GET', `${base}?total_count=true`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_count: 3, count: 3, has_more: false, limit: 10, offset: 0 });
    expect(res.body.items.map((p: any) => p.provider_name)).toEqual(['charlie', 'alpha', 'bravo']);
  });

  it('sort, q on enabled and has_client_secret, fields, paging with a cursor', async () => {
    const sorted = await fx.call('GET', `${base}?sort=provider_name:desc`);
    expect(sorted.body.items.map((p: any) => p.provider_name)).toEqual(['charlie', 'bravo', 'alpha']);
    const enabled = await fx.call('GET', `${base}?q=(enabled=true)&sort=provider_name`);
    expect(enabled.body.items.map((p: any) => p.provider_name)).toEqual(['alpha', 'bravo']);
    const withSecret = await fx.call('GET', `${base}?q=(has_client_secret=true)`);
    expect(withSecret.body.items.map((p: any) => p.id)).toEqual([made[1]!.id]);
    const fields = await fx.call('GET', `${base}?fields=id,provider_name`);
    expect(fields.body.items[0]).toEqual({ id: made[0]!.id, provider_name: 'charlie' });
    const first = await fx.call('GET', `${base}?limit=2`);
    expect(first.body).toMatchObject({ count: 2, has_more: true });
    expect(first.body.items.map((p: any) => p.provider_name)).toEqual(['charlie', 'alpha']);
    const next = await fx.call('GET', `${base}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ count: 1, has_more: false });
    expect(next.body.items.map((p: any) => p.provider_name)).toEqual(['bravo']);
  });

  it('an unknown attribute in q, sort or fields is 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['q=(client_secret=x)', 'query.q'],
      ['sort=client_secret_sealed', 'query.sort'],
      ['fields=client_secret', 'query.fields'],
    ]) {
      const res = await fx.call('GET', `${base}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(param!) });
    }
  });
});
