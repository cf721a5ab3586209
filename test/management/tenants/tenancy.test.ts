import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { TENANT_SCOPES, type TenantsFixture, tenantsFixture } from '../../support/management/tenants-fixture.ts';

/** docs/tenants.md "Who may call": global callers manage every tenant; anyone else sees its own tenant only. */
describe('Tenants and callers, multi-tenant mode (docs/contract.md §4, §7.7)', () => {
  let fx: TenantsFixture;
  let tenantB: Record<string, any>;
  let other: Record<string, any>;
  let bCall: (method: string, path: string, body?: unknown) => ReturnType<TenantsFixture['call']>;
  beforeAll(async () => {
    fx = await tenantsFixture();
    tenantB = await fx.createTenantApi({ tenant_name: 'tenant-b' });
    other = await fx.createTenantApi({ tenant_name: 'tenant-other' });
    const { token } = await fx.boundToken(tenantB.id, TENANT_SCOPES);
    bCall = (method, path, body) => fx.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
  });
  afterAll(async () => fx?.stop());

  it('a global client lists every tenant, whatever tenant_id header it sends', async () => {
    const res = await fx.call('GET', '/tenants?limit=100', { headers: { tenant_id: tenantB.id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBeNull();
    expect(res.body.items.map((t: any) => t.id)).toEqual([DEFAULT_TENANT, tenantB.id, other.id]);
  });

  it('a tenant-bound client sees its own tenant only: a list of one, GET 200, others 404 exactly as an unknown id', async () => {
    const list = await bCall('GET', '/tenants?total_count=true');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total_count: 1, count: 1, has_more: false });
    expect(list.body.items).toEqual([tenantB]);
    expect((await bCall('GET', `/tenants/${tenantB.id}`)).body).toEqual(tenantB);
    const unknown = await bCall('GET', `/tenants/${UNKNOWN_ID}`);
    for (const id of [DEFAULT_TENANT, other.id]) {
      const res = await bCall('GET', `/tenants/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
  });

  it('a tenant-bound client may rename its own tenant, not another (404)', async () => {
    const mine = await bCall('PATCH', `/tenants/${tenantB.id}`, { tenant_description: 'set by B' });
    expect(mine.status).toBe(200);
    expect(mine.body.tenant_description).toBe('set by B');
    const theirs = await bCall('PATCH', `/tenants/${other.id}`, { tenant_name: 'taken over' });
    expect(theirs.status).toBe(404);
    expect(await fx.tenantItem(other.id)).toMatchObject({ tenant_name: 'tenant-other', version: 1 });
    expect(await fx.item(keys.marker('TENANT_NAME', 'taken over'))).toBeUndefined();
  });

  it('a tenant-bound client may not create or delete tenants (403), even holding the scopes', async () => {
    const created = await bCall('POST', '/tenants', { tenant_name: 'made by B' });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ code: 'forbidden', message: expect.stringContaining('global client') });
    expect(await fx.item(keys.marker('TENANT_NAME', 'made by B'))).toBeUndefined();
    for (const id of [tenantB.id, other.id, DEFAULT_TENANT, UNKNOWN_ID]) {
      const res = await bCall('DELETE', `/tenants/${id}`);
      expect(res.status, id).toBe(403);
    }
    expect(await fx.tenantItem(other.id)).toBeDefined();
  });

  it('a tenant_id header naming another tenant is 403 (the management context)', async () => {
    const res = await fx.call('GET', '/tenants', {
      token: (await fx.boundToken(tenantB.id, 'read:tenants')).token,
      headers: { tenant_id: other.id },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('header.tenant_id');
  });

  it("a user's token works in its user's tenant only", async () => {
    const user = await fx.createUser({}, { tenant_id: tenantB.id });
    const { runtime } = fx.svc.stack;
    const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
    const ids = new Map(Object.entries(api!.scope_names).map(([id, name]) => [name, id]));
    const grant = { permissions: [{ resource_id: api!.id, scopes: TENANT_SCOPES.split(' ').map((s) => ids.get(s)!) }] };
    const granted = await fx.call('POST', `/users/${user.id}/permissions`, { body: grant, headers: { tenant_id: tenantB.id } });
    expect(granted.status).toBe(204);
    const token = await fx.userToken(user.id, { scope: TENANT_SCOPES });
    const list = await fx.call('GET', '/tenants', { token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: any) => t.id)).toEqual([tenantB.id]);
    expect((await fx.call('GET', `/tenants/${other.id}`, { token })).status).toBe(404);
    expect((await fx.call('POST', '/tenants', { token, body: { tenant_name: 'by user' } })).status).toBe(403);
    expect((await fx.call('DELETE', `/tenants/${tenantB.id}`, { token })).status).toBe(403);
  });

  it('without the scope: 403 insufficient_scope naming it', async () => {
    const { token } = await fx.boundToken(tenantB.id, 'read:users');
    const res = await fx.call('GET', '/tenants', { token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('read:tenants');
  });
});

describe('Tenants in single-tenant mode (docs/tenants.md)', () => {
  let fx: TenantsFixture;
  beforeAll(async () => {
    fx = await tenantsFixture({});
  });
  afterAll(async () => fx?.stop());

  it('lists and reads the default tenant only; it may be renamed', async () => {
    const list = await fx.call('GET', '/tenants?total_count=true');
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: any) => t.id)).toEqual([DEFAULT_TENANT]);
    expect(list.body.total_count).toBe(1);
    const renamed = await fx.call('PATCH', `/tenants/${DEFAULT_TENANT}`, { body: { tenant_name: 'main' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ tenant_name: 'main', is_default: true });
    expect((await fx.item(keys.marker('TENANT_NAME', 'main')))?.target_id).toBe(DEFAULT_TENANT);
    expect((await fx.call('GET', `/tenants/${UNKNOWN_ID}`)).status).toBe(404);
  });

  it('creating or deleting a tenant is 403 naming single-tenant mode; nothing is stored', async () => {
    const created = await fx.call('POST', '/tenants', { body: { tenant_name: 'second' } });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ code: 'forbidden', message: expect.stringContaining('single-tenant') });
    expect(await fx.item(keys.marker('TENANT_NAME', 'second'))).toBeUndefined();
    expect((await fx.item(keys.tenantsCounter))?.count).toBe(1);
    const deleted = await fx.call('DELETE', `/tenants/${DEFAULT_TENANT}`);
    expect(deleted.status).toBe(403);
    expect(await fx.tenantItem(DEFAULT_TENANT)).toBeDefined();
  });
});
