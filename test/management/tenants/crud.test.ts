import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { rolesRepository } from '#shared/store/rbac/roles-repository.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { TENANT_KEYS, type TenantsFixture, tenantsFixture } from '../../support/management/tenants-fixture.ts';

let fx: TenantsFixture;
beforeAll(async () => {
  fx = await tenantsFixture();
});
afterAll(async () => fx?.stop());

const marker = (name: string) => fx.item(keys.marker('TENANT_NAME', name));

describe('Tenants CRUD over HTTP (docs/contract.md §6, docs/tenants.md)', () => {
  it('POST creates: 201 with the Tenant, no storage fields; the marker and the count are stored', async () => {
    const before = (await fx.call('GET', '/tenants?total_count=true')).body;
    const metadata = [{ key: 'region', value: 'eu' }];
    const res = await fx.call('POST', '/tenants', {
      body: { tenant_name: 'Acme', tenant_description: 'the Acme tenant', tenant_metadata: metadata },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body).sort()).toEqual([...TENANT_KEYS, 'tenant_description'].sort());
    expect(res.body).toMatchObject({
      tenant_name: 'Acme',
      tenant_description: 'the Acme tenant',
      tenant_metadata: metadata,
      is_default: false,
      created_by: fx.svc.clientId,
      updated_by: fx.svc.clientId,
    });
    expect((await marker('Acme'))?.target_id).toBe(res.body.id);
    expect(await fx.tenantItem(res.body.id)).toMatchObject({ version: 1, GSI1PK: keys.tenantsCollection, GSI1SK: res.body.id });
    const got = await fx.call('GET', `/tenants/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const after = (await fx.call('GET', '/tenants?total_count=true')).body;
    expect(after.total_count).toBe(before.total_count + 1);
    expect((await fx.item(keys.tenantsCounter))?.count).toBe(after.total_count);
  });

  it('tenant_name is unique across the stage, compared as written: 409 naming body.tenant_name, nothing stored', async () => {
    const a = await fx.createTenantApi({ tenant_name: 'unique-one' });
    const count = (await fx.item(keys.tenantsCounter))?.count;
    const dup = await fx.call('POST', '/tenants', { body: { tenant_name: 'unique-one' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ code: 'conflict', message: expect.stringContaining('body.tenant_name') });
    expect((await marker('unique-one'))?.target_id).toBe(a.id);
    expect((await fx.item(keys.tenantsCounter))?.count).toBe(count);
    const taken = await fx.call('POST', '/tenants', { body: { tenant_name: 'default' } });
    expect(taken.status).toBe(409);
    // Another case is another name (as role names within a tenant).
    expect((await fx.call('POST', '/tenants', { body: { tenant_name: 'UNIQUE-ONE' } })).status).toBe(201);
  });

  it('the default tenant is there from bootstrap, is_default true', async () => {
    const res = await fx.call('GET', `/tenants/${DEFAULT_TENANT}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: DEFAULT_TENANT, tenant_name: 'default', is_default: true, tenant_metadata: [] });
  });

  it('PATCH merges, moves the marker, null removes the description, metadata is replaced', async () => {
    const t = await fx.createTenantApi({
      tenant_name: 'old-name',
      tenant_description: 'desc',
      tenant_metadata: [{ key: 'a', value: '1' }],
    });
    const res = await fx.call('PATCH', `/tenants/${t.id}`, { body: { tenant_name: 'new-name' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tenant_name: 'new-name', tenant_description: 'desc', tenant_metadata: [{ key: 'a', value: '1' }] });
    expect(await marker('old-name')).toBeUndefined();
    expect((await marker('new-name'))?.target_id).toBe(t.id);
    const next = await fx.call('PATCH', `/tenants/${t.id}`, {
      body: { tenant_description: null, tenant_metadata: [{ key: 'b', value: '2' }] },
    });
    expect(next.status).toBe(200);
    expect(next.body.tenant_description).toBeUndefined();
    expect(next.body.tenant_metadata).toEqual([{ key: 'b', value: '2' }]);
    expect(next.body.created_at).toBe(t.created_at);
    expect((await fx.tenantItem(t.id))?.version).toBe(3);
    expect((await fx.call('GET', `/tenants/${t.id}`)).body).toEqual(next.body);
  });

  it('PATCH to a taken name is 409 and changes nothing', async () => {
    await fx.createTenantApi({ tenant_name: 'taken-x' });
    const t = await fx.createTenantApi({ tenant_name: 'free-y' });
    const res = await fx.call('PATCH', `/tenants/${t.id}`, { body: { tenant_name: 'taken-x' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('body.tenant_name');
    expect((await fx.call('GET', `/tenants/${t.id}`)).body).toEqual(t);
    expect((await marker('free-y'))?.target_id).toBe(t.id);
  });

  it('concurrent PATCHes never lose an update: every field lands, version counts them', async () => {
    const t = await fx.createTenantApi();
    const results = await Promise.all([
      fx.call('PATCH', `/tenants/${t.id}`, { body: { tenant_description: 'from A' } }),
      fx.call('PATCH', `/tenants/${t.id}`, { body: { tenant_metadata: [{ key: 'from', value: 'B' }] } }),
      fx.call('PATCH', `/tenants/${t.id}`, { body: { tenant_name: `renamed-${t.id}` } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const got = (await fx.call('GET', `/tenants/${t.id}`)).body;
    expect(got).toMatchObject({
      tenant_description: 'from A',
      tenant_metadata: [{ key: 'from', value: 'B' }],
      tenant_name: `renamed-${t.id}`,
    });
    expect((await fx.tenantItem(t.id))?.version).toBe(4);
  });

  it('DELETE an empty tenant: 204, record, marker and count gone; then 404', async () => {
    const t = await fx.createTenantApi({ tenant_name: 'to-delete' });
    const count = (await fx.item(keys.tenantsCounter))?.count;
    const res = await fx.call('DELETE', `/tenants/${t.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await fx.tenantItem(t.id)).toBeUndefined();
    expect(await marker('to-delete')).toBeUndefined();
    expect((await fx.item(keys.tenantsCounter))?.count).toBe(count - 1);
    expect((await fx.item(keys.collectionCounter(t.id, 'USERS')))?.tenant_deleted).toBe(true);
    expect((await fx.call('GET', `/tenants/${t.id}`)).status).toBe(404);
    expect((await fx.call('DELETE', `/tenants/${t.id}`)).status).toBe(404);
    // The name is free again.
    expect((await fx.call('POST', '/tenants', { body: { tenant_name: 'to-delete' } })).status).toBe(201);
  });

  it('DELETE the default tenant: 403, nothing changes', async () => {
    const res = await fx.call('DELETE', `/tenants/${DEFAULT_TENANT}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: 'forbidden', message: expect.stringContaining('default tenant') });
    expect(await fx.tenantItem(DEFAULT_TENANT)).toMatchObject({ is_default: true });
  });

  it('DELETE a tenant that holds records: 409 naming each kind with its count; after they go, 204', async () => {
    const t = await fx.createTenantApi();
    const user = await fx.createUser({}, { tenant_id: t.id });
    const client = await fx.createClient({ tenant_id: t.id, is_global: false });
    const res = await fx.call('DELETE', `/tenants/${t.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'conflict', message: expect.stringContaining('clients (1), users (1)') });
    expect(await fx.tenantItem(t.id)).toBeDefined();
    expect((await fx.item(keys.collectionCounter(t.id, 'USERS')))?.tenant_deleted).toBeUndefined();
    expect((await fx.call('DELETE', `/users/${user.id}`, { headers: { tenant_id: t.id } })).status).toBe(204);
    expect((await fx.call('DELETE', `/clients/${client.id}`, { headers: { tenant_id: t.id } })).status).toBe(204);
    expect((await fx.call('DELETE', `/tenants/${t.id}`)).status).toBe(204);
  });

  it('a create racing the delete never leaves a record in a deleted tenant', async () => {
    for (let i = 0; i < 3; i++) {
      const t = await fx.createTenantApi();
      const [del, created] = await Promise.all([
        fx.call('DELETE', `/tenants/${t.id}`),
        fx.call('POST', '/roles', { body: { role_name: `racer-${i}` }, headers: { tenant_id: t.id } }),
      ]);
      const tenant = await fx.tenantItem(t.id);
      const roles = (await fx.item(keys.collectionCounter(t.id, 'ROLES')))?.count ?? 0;
      if (del.status === 204) {
        expect(tenant).toBeUndefined();
        expect([404]).toContain(created.status);
        expect(roles).toBe(0);
      } else {
        expect(del.status).toBe(409);
        expect(created.status).toBe(201);
        expect(tenant).toBeDefined();
        expect(roles).toBe(1);
      }
    }
  });

  it('an unknown id: GET, PATCH, DELETE are 404', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await fx.call(method, `/tenants/${UNKNOWN_ID}`, method === 'PATCH' ? { body: { tenant_name: 'x' } } : {});
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: expect.stringContaining('Tenant not found') });
    }
  });

  it('a record created in a deleted tenant through a stale header is 404, not stored', async () => {
    const t = await fx.createTenantApi();
    expect((await fx.call('DELETE', `/tenants/${t.id}`)).status).toBe(204);
    const res = await fx.call('POST', '/roles', { body: { role_name: 'ghost' }, headers: { tenant_id: t.id } });
    expect(res.status).toBe(404);
    expect((await fx.item(keys.collectionCounter(t.id, 'ROLES')))?.count ?? 0).toBe(0);
  });
  it('the counters a delete marked refuse a create that read the tenant before the delete (no tenant check here)', async () => {
    const t = await fx.createTenantApi();
    expect((await fx.call('DELETE', `/tenants/${t.id}`)).status).toBe(204);
    const { runtime } = fx.svc.stack;
    const roles = rolesRepository(runtime.db, runtime.config.tableName, runtime.now);
    await expect(roles.create({ tenant_id: t.id, role_name: 'late' }, fx.svc.clientId)).rejects.toMatchObject({
      status: 404,
      message: 'The tenant no longer exists.',
    });
    expect(await fx.item(keys.marker('ROLE_NAME', t.id, 'late'))).toBeUndefined();
    expect(await fx.item(keys.collectionCounter(t.id, 'ROLES'))).toMatchObject({ tenant_deleted: true });
    expect((await fx.item(keys.collectionCounter(t.id, 'ROLES')))?.count ?? 0).toBe(0);
  });
});
