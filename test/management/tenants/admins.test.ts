import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_ADMIN_SCOPES } from '#shared/rbac/tenant-admin-scopes.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import { type TenantsFixture, tenantsFixture } from '../../support/management/tenants-fixture.ts';

/**
 * Tenant admins over HTTP against DynamoDB Local (docs/tenants.md "Tenant admins"): the link item
 * and the user item's `tenant_admin` mirror move together; the link rules of docs/contract.md §6
 * and §7.6; users of the path's tenant only; the tenant rules of "Who may call"; no escalation (§8).
 */
let fx: TenantsFixture;
let tenant: Record<string, any>;
let other: Record<string, any>;
beforeAll(async () => {
  fx = await tenantsFixture();
  tenant = await fx.createTenantApi();
  other = await fx.createTenantApi();
});
afterAll(async () => fx?.stop());

const inTenant = (t: Record<string, any>) => ({ tenant_id: t.id });
const userOf = (t: Record<string, any>) => fx.createUser({}, inTenant(t));
const admins = (t: Record<string, any>) => `/tenants/${t.id}/admins`;

/** The tenant's admin link items, as stored (consistent Query of its partition). */
async function adminItems(tenantId: string) {
  const { runtime } = fx.svc.stack;
  const res = await runtime.db.send(
    new QueryCommand({
      TableName: runtime.config.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': keys.tenant(tenantId).PK, ':p': keys.tenantAdminPrefix },
      ConsistentRead: true,
    }),
  );
  return res.Items ?? [];
}
const adminUserIds = async (tenantId: string) => (await adminItems(tenantId)).map((i) => String(i.user_id)).sort();
const mirror = async (userId: string) => (await fx.item(keys.user(userId)))?.tenant_admin;

describe('POST / GET / DELETE /tenants/{tenant_id}/admins', () => {
  it('adds users of the tenant: 204, one link item each in the tenant partition, the user mirror in the same write; listed with user_data under expand=all', async () => {
    const [a, b] = [await userOf(tenant), await userOf(tenant)];
    const res = await fx.call('POST', admins(tenant), { body: { users: [a.id, b.id, a.id] } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.headers.get('content-length') ?? '0').toBe('0');

    const a1 = await fx.item(keys.tenantAdmin(tenant.id, a.id));
    expect(a1).toMatchObject({
      type: 'TenantAdmin',
      tenant_id: tenant.id,
      user_id: a.id,
      GSI2PK: keys.userAdminOf(a.id),
      GSI2SK: tenant.id,
      created_by: expect.any(String),
    });
    expect(await mirror(a.id)).toBe(true);
    expect(await mirror(b.id)).toBe(true);
    // The mirror never shows in the User.
    const shown = await fx.call('GET', `/users/${a.id}`, { headers: inTenant(tenant) });
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('tenant_admin');

    const list = await fx.call('GET', `${admins(tenant)}?expand=all`);
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBeNull();
    expect(list.body.items.map((i: any) => i.user_id)).toEqual([a.id, b.id].sort());
    const itemA = list.body.items.find((i: any) => i.user_id === a.id);
    expect(Object.keys(itemA).sort()).toEqual(
      ['created_at', 'created_by', 'id', 'tenant_id', 'updated_at', 'updated_by', 'user_data', 'user_id'].sort(),
    );
    expect(itemA).toMatchObject({ id: a1!.id, tenant_id: tenant.id, user_data: { id: a.id, email: a.email, tenant_id: tenant.id } });
    expect(itemA.user_data).not.toHaveProperty('tenant_admin');
    const plain = await fx.call('GET', admins(tenant));
    expect(plain.body.items[0]).not.toHaveProperty('user_data');

    const removed = await fx.call('DELETE', admins(tenant), { body: { users: [a.id] } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    expect(await fx.item(keys.tenantAdmin(tenant.id, a.id))).toBeUndefined();
    expect(await mirror(a.id)).toBeUndefined();
    expect(await mirror(b.id)).toBe(true);
    expect(await adminUserIds(tenant.id)).toEqual([b.id]);
  });

  it('link rules: 51 ids and malformed ids 400 before existence; unknown or other-tenant user 404 alike; existing 409; missing 404; nothing changes', async () => {
    const [a, b] = [await userOf(tenant), await userOf(tenant)];
    const stranger = await userOf(other);
    expect((await fx.call('POST', admins(tenant), { body: { users: [a.id] } })).status).toBe(204);
    const before = await adminUserIds(tenant.id);

    const tooMany = await fx.call('POST', admins(tenant), { body: { users: Array.from({ length: 51 }, () => randomUUID()) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ code: 'invalid_request', message: expect.stringContaining('body.users') });
    const tooManyRemoved = await fx.call('DELETE', admins(tenant), { body: { users: Array.from({ length: 51 }, () => randomUUID()) } });
    expect(tooManyRemoved.status).toBe(400);
    for (const body of [{ users: [] }, { users: ['not-a-uuid'] }, { users: b.id }, {}, { users: [b.id], extra: 1 }]) {
      const res = await fx.call('POST', admins(tenant), { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(/^body\./);
    }

    const unknown = await fx.call('POST', admins(tenant), { body: { users: [b.id, UNKNOWN_ID] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'not_found', message: 'body.users: a user was not found.' });
    const foreign = await fx.call('POST', admins(tenant), { body: { users: [b.id, stranger.id] } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);

    const existing = await fx.call('POST', admins(tenant), { body: { users: [b.id, a.id] } });
    expect(existing.status).toBe(409);
    expect(existing.body.message).toContain('body.users');
    const missing = await fx.call('DELETE', admins(tenant), { body: { users: [a.id, b.id] } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain('body.users');

    expect(await adminUserIds(tenant.id)).toEqual(before);
    expect(await mirror(a.id)).toBe(true);
    expect(await mirror(b.id)).toBeUndefined();
    expect(await mirror(stranger.id)).toBeUndefined();
    expect(await adminUserIds(other.id)).toEqual([]);
  });

  it('an unknown tenant is 404 on every method', async () => {
    const a = await userOf(tenant);
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await fx.call(method, `/tenants/${UNKNOWN_ID}/admins`, method === 'GET' ? {} : { body: { users: [a.id] } });
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'Tenant not found.' });
    }
  });

  it('concurrent changes: parallel adds of different users all land; parallel adds of one user make one link (one 204, the rest 409)', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => userOf(tenant)));
    const answers = await Promise.all(many.map((u) => fx.call('POST', admins(tenant), { body: { users: [u.id] } })));
    expect(answers.map((r) => r.status)).toEqual(many.map(() => 204));
    for (const u of many) {
      expect(await fx.item(keys.tenantAdmin(tenant.id, u.id))).toBeDefined();
      expect(await mirror(u.id)).toBe(true);
    }

    const one = await userOf(tenant);
    const same = await Promise.all(Array.from({ length: 5 }, () => fx.call('POST', admins(tenant), { body: { users: [one.id] } })));
    expect(same.map((r) => r.status).sort()).toEqual([204, 409, 409, 409, 409]);
    expect((await adminItems(tenant.id)).filter((i) => i.user_id === one.id)).toHaveLength(1);
    expect(await mirror(one.id)).toBe(true);
  });

  it('deleting the user removes its admin link with it', async () => {
    const a = await userOf(tenant);
    expect((await fx.call('POST', admins(tenant), { body: { users: [a.id] } })).status).toBe(204);
    expect((await fx.call('DELETE', `/users/${a.id}`, { headers: inTenant(tenant) })).status).toBe(204);
    expect(await fx.item(keys.tenantAdmin(tenant.id, a.id))).toBeUndefined();
    expect(await adminUserIds(tenant.id)).not.toContain(a.id);
  });
});

describe('who may call (docs/tenants.md "Who may call", docs/contract.md §8)', () => {
  it("a tenant-bound client holding every tenant-admin scope manages its own tenant's admins; another tenant is 404 as an unknown id", async () => {
    const { token } = await fx.boundToken(tenant.id, TENANT_ADMIN_SCOPES.join(' '));
    const a = await userOf(tenant);
    const added = await fx.call('POST', admins(tenant), { token, body: { users: [a.id] } });
    expect(added.status, JSON.stringify(added.body)).toBe(204);
    expect(await mirror(a.id)).toBe(true);

    const unknown = await fx.call('GET', `/tenants/${UNKNOWN_ID}/admins`, { token });
    const theirs = await fx.call('GET', admins(other), { token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    const b = await userOf(other);
    const intoTheirs = await fx.call('POST', admins(other), { token, body: { users: [b.id] } });
    expect(intoTheirs.status).toBe(404);
    expect(intoTheirs.body).toEqual(unknown.body);
    expect(await adminUserIds(other.id)).toEqual([]);
    const header = await fx.call('GET', admins(tenant), { token, headers: inTenant(other) });
    expect(header.status).toBe(403);
    expect(header.body.message).toContain('header.tenant_id');
  });

  it('no escalation: update:tenants alone cannot add an admin (403 insufficient_scope naming a scope, nothing stored); removing needs update:tenants only', async () => {
    const a = await userOf(tenant);
    const { token } = await fx.boundToken(tenant.id, 'read:tenants update:tenants read:users');
    const res = await fx.call('POST', admins(tenant), { token, body: { users: [a.id] } });
    expect(res.status).toBe(403);
    const firstMissing = TENANT_ADMIN_SCOPES.filter((s) => !['read:tenants', 'update:tenants', 'read:users'].includes(s)).sort()[0]!;
    expect(res.body).toEqual({ code: 'insufficient_scope', message: `The access token lacks the scope ${firstMissing}.` });
    expect(res.headers.get('www-authenticate')).toContain(`scope="${firstMissing}"`);
    expect(await fx.item(keys.tenantAdmin(tenant.id, a.id))).toBeUndefined();
    expect(await mirror(a.id)).toBeUndefined();

    expect((await fx.call('POST', admins(tenant), { body: { users: [a.id] } })).status).toBe(204);
    const removed = await fx.call('DELETE', admins(tenant), { token, body: { users: [a.id] } });
    expect(removed.status).toBe(204);
    expect(await mirror(a.id)).toBeUndefined();
  });

  it("no takeover: update:users alone cannot change a tenant admin's email (403 naming a scope the admin holds), an ordinary user's it can", async () => {
    const [a, plain] = [await userOf(tenant), await userOf(tenant)];
    expect((await fx.call('POST', admins(tenant), { body: { users: [a.id] } })).status).toBe(204);
    const { token } = await fx.boundToken(tenant.id, 'read:users update:users');
    const res = await fx.call('PATCH', `/users/${a.id}`, { token, body: { email: `taken-${randomUUID()}@example.com` } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect((await fx.item(keys.user(a.id)))?.email).toBe(a.email);
    const ok = await fx.call('PATCH', `/users/${plain.id}`, { token, body: { email: `moved-${randomUUID()}@example.com` } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it('each route needs its scope: read:tenants to list, update:tenants to change', async () => {
    const a = await userOf(tenant);
    const { token } = await fx.boundToken(tenant.id, 'read:users');
    const list = await fx.call('GET', admins(tenant), { token });
    expect(list.status).toBe(403);
    expect(list.headers.get('www-authenticate')).toContain('scope="read:tenants"');
    const add = await fx.call('POST', admins(tenant), { token, body: { users: [a.id] } });
    expect(add.status).toBe(403);
    expect(add.headers.get('www-authenticate')).toContain('scope="update:tenants"');
    expect(await mirror(a.id)).toBeUndefined();
  });
});

describe('single-tenant mode (docs/tenants.md "Tenant admins")', () => {
  let single: TenantsFixture;
  beforeAll(async () => {
    single = await tenantsFixture({});
  });
  afterAll(async () => single?.stop());

  it('the default tenant has admins like any other; any other tenant id is 404', async () => {
    const a = await single.createUser();
    const added = await single.call('POST', `/tenants/${DEFAULT_TENANT}/admins`, { body: { users: [a.id] } });
    expect(added.status, JSON.stringify(added.body)).toBe(204);
    expect((await single.item(keys.user(a.id)))?.tenant_admin).toBe(true);
    expect(await single.item(keys.tenantAdmin(DEFAULT_TENANT, a.id))).toMatchObject({ user_id: a.id, tenant_id: DEFAULT_TENANT });
    const list = await single.call('GET', `/tenants/${DEFAULT_TENANT}/admins`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => i.user_id)).toEqual([a.id]);
    const elsewhere = await single.call('GET', `/tenants/${UNKNOWN_ID}/admins`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ code: 'not_found', message: 'Tenant not found.' });
  });
});
