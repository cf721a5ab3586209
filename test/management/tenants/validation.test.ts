import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { type TenantsFixture, tenantsFixture } from '../../support/management/tenants-fixture.ts';

let fx: TenantsFixture;
let tenant: Record<string, any>;
beforeAll(async () => {
  fx = await tenantsFixture();
  tenant = await fx.createTenantApi({ tenant_name: 'validated' });
});
afterAll(async () => fx?.stop());

const meta = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));

describe('Tenants input validation: 400 naming the field, nothing stored (docs/contract.md §2, docs/tenants.md)', () => {
  it.each([
    ['no tenant_name', {}, 'body.tenant_name'],
    ['blank tenant_name', { tenant_name: '   ' }, 'body.tenant_name'],
    ['tenant_name too long', { tenant_name: 'x'.repeat(256) }, 'body.tenant_name'],
    ['tenant_name not a string', { tenant_name: 7 }, 'body.tenant_name'],
    ['a control character', { tenant_name: 'a\u0007b' }, 'body.tenant_name'],
    ['description too long', { tenant_name: 'ok-1', tenant_description: 'd'.repeat(1025) }, 'body.tenant_description'],
    ['metadata not an array', { tenant_name: 'ok-2', tenant_metadata: { a: 1 } }, 'body.tenant_metadata'],
    [
      'metadata duplicate keys',
      {
        tenant_name: 'ok-3',
        tenant_metadata: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      },
      'body.tenant_metadata',
    ],
    ['metadata over 50 entries', { tenant_name: 'ok-4', tenant_metadata: meta(51) }, 'body.tenant_metadata'],
    ['metadata entry without value', { tenant_name: 'ok-5', tenant_metadata: [{ key: 'a' }] }, 'body.tenant_metadata'],
    ['unknown field', { tenant_name: 'ok-6', tenant_nmae: 'x' }, 'body.tenant_nmae'],
    ['is_default is the store’s', { tenant_name: 'ok-7', is_default: true }, 'body.is_default'],
    ['id is the store’s', { tenant_name: 'ok-8', id: '019b0000-0000-7000-8000-000000000001' }, 'body.id'],
  ])('POST: %s', async (_name, body, field) => {
    const before = (await fx.item(keys.tenantsCounter))?.count;
    const res = await fx.call('POST', '/tenants', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(field) });
    expect((await fx.item(keys.tenantsCounter))?.count).toBe(before);
    const name = (body as { tenant_name?: unknown }).tenant_name;
    if (typeof name === 'string' && name.trim()) expect(await fx.item(keys.marker('TENANT_NAME', name))).toBeUndefined();
  });

  it.each([
    ['tenant_name null', { tenant_name: null }, 'body.tenant_name'],
    ['tenant_name blank', { tenant_name: '' }, 'body.tenant_name'],
    ['metadata null', { tenant_metadata: null }, 'body.tenant_metadata'],
    ['is_default', { is_default: false }, 'body.is_default'],
    ['not an object', [1, 2], 'body'],
  ])('PATCH: %s', async (_name, body, field) => {
    const res = await fx.call('PATCH', `/tenants/${tenant.id}`, { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(field) });
    expect(await fx.tenantItem(tenant.id)).toMatchObject({ tenant_name: 'validated', version: 1 });
  });

  it('a path id that is not a UUID is 400 naming path.tenant_id', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await fx.call(method, '/tenants/not-a-uuid', method === 'PATCH' ? { body: {} } : {});
      expect(res.status, method).toBe(400);
      expect(res.body.message).toContain('path.tenant_id');
    }
  });

  it('PUT is not a method of a tenant: 405 with Allow', async () => {
    const res = await fx.call('PUT', `/tenants/${tenant.id}`, { body: { tenant_name: 'x' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('PATCH');
  });

  it('no token: 401 with WWW-Authenticate', async () => {
    const res = await fetch(`${fx.svc.url}/identity/v1/tenants`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    expect(await res.json()).toMatchObject({ code: 'unauthorized' });
  });
});
