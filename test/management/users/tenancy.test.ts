import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT } from '../../support/management/clients-fixture.ts';
import { GOOD_PASSWORD, type UsersFixture, usersFixture } from '../../support/management/users-fixture.ts';

let fx: UsersFixture;
let tenantB: string;
/** A non-global client of tenant B holding every users scope, and its token. */
let boundToken: string;
let bound: Record<string, any>;
const USER_SCOPES = 'read:users create:users update:users delete:users';

beforeAll(async () => {
  fx = await usersFixture({ MULTI_TENANT: 'true' });
  tenantB = await fx.createTenant('users-b');
  bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  boundToken = await fx.clientToken(bound, USER_SCOPES);
});
afterAll(async () => fx?.stop());

const asBound = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fx.call(method, path, { ...(body !== undefined ? { body } : {}), token: boundToken, headers });

describe('Users and tenants (docs/contract.md §4)', () => {
  it('a global caller creates in a tenant by body or header; the same email may exist once per tenant', async () => {
    const email = `both-${Date.now()}@example.com`;
    const a = await fx.createUser({ email });
    const b = await fx.createUser({ email: email.toUpperCase(), tenant_id: tenantB });
    expect(a.tenant_id).toBe(DEFAULT_TENANT);
    expect(b.tenant_id).toBe(tenantB);
    const dup = await fx.call('POST', '/users', { body: { email }, headers: { tenant_id: tenantB } });
    expect(dup.status).toBe(409);
    const inB = await fx.call('GET', `/users?q=${encodeURIComponent(`(email=${email})`)}`, { headers: { tenant_id: tenantB } });
    expect(inB.body.items.map((u: any) => u.id)).toEqual([b.id]);
  });

  it("a tenant-bound caller: another tenant's user is 404 on every route, absent from lists and lookups", async () => {
    const other = await fx.createUser({ username: `other-${Date.now()}`, password: GOOD_PASSWORD });
    for (const [method, path, body] of [
      ['GET', `/users/${other.id}`, undefined],
      ['PATCH', `/users/${other.id}`, { name: 'hijack' }],
      ['PUT', `/users/${other.id}`, { name: 'hijack' }],
      ['DELETE', `/users/${other.id}`, undefined],
      ['POST', `/users/${other.id}/block`, undefined],
      ['POST', `/users/${other.id}/unblock`, undefined],
      ['PUT', `/users/${other.id}/password`, { password: `${GOOD_PASSWORD}-x` }],
      ['POST', `/users/${other.id}/otp`, undefined],
      ['DELETE', `/users/${other.id}/otp`, undefined],
    ] as const) {
      const res = await asBound(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const unchanged = await fx.call('GET', `/users/${other.id}`);
    expect(unchanged.body).toEqual(other);
    const list = await asBound('GET', '/users?limit=100');
    expect(list.body.items.some((u: any) => u.id === other.id)).toBe(false);
    for (const term of [`(email=${other.email})`, `(username=${other.username})`]) {
      expect((await asBound('GET', `/users?q=${encodeURIComponent(term)}`)).body.count).toBe(0);
    }
  });

  it('a tenant-bound caller works in its own tenant; naming another tenant is 403', async () => {
    const created = await asBound('POST', '/users', { email: `mine-${Date.now()}@example.com` });
    expect(created.status).toBe(201);
    expect(created.body.tenant_id).toBe(tenantB);
    expect((await asBound('GET', `/users/${created.body.id}`)).status).toBe(200);
    expect((await asBound('POST', '/users', { email: 'x@example.com', tenant_id: DEFAULT_TENANT })).status).toBe(403);
    expect((await asBound('GET', '/users', undefined, { tenant_id: DEFAULT_TENANT })).status).toBe(403);
  });

  it("a user's own token works in the user's tenant only: the header naming another is 403", async () => {
    const u = await fx.createUser({ tenant_id: tenantB, password: GOOD_PASSWORD });
    const token = await fx.userToken(u.id, { clientId: bound.id });
    const body = { password: GOOD_PASSWORD };
    const otp = await fx.call('POST', `/users/${u.id}/otp`, { token, body });
    expect(otp.status).toBe(201);
    const other = await fx.call('POST', `/users/${u.id}/otp`, { token, body, headers: { tenant_id: DEFAULT_TENANT } });
    expect(other.status).toBe(403);
    const own = await fx.call('POST', `/users/${u.id}/otp`, { token, body, headers: { tenant_id: tenantB } });
    expect(own.status).toBe(201);
  });

  it("a user token minted by a tenant-bound client of another tenant than the user's is refused (403)", async () => {
    const u = await fx.createUser({ password: GOOD_PASSWORD }); // default tenant
    const token = await fx.userToken(u.id, { clientId: bound.id }); // bound is tenant B's
    const res = await fx.call('PUT', `/users/${u.id}/password`, {
      body: { password: `${GOOD_PASSWORD}-x`, old_password: GOOD_PASSWORD },
      token,
    });
    expect(res.status).toBe(403);
  });
});
