import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { type ClientsFixture, clientsFixture, DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';

let fx: ClientsFixture;
let tenantB: string;
/** A non-global client of tenant B and its management token (docs/contract.md §4). */
let bound: Record<string, any>;
let boundToken: string;
/** A client of the default tenant, invisible to `bound`. */
let other: Record<string, any>;

const CLIENT_SCOPES = 'read:clients create:clients update:clients delete:clients read:client_keys update:client_keys';

/**
 * A management token for a tenant-bound client, end to end: the Default Client authorizes it on
 * the management API (a system resource, shared by every tenant: docs/contract.md §4) and grants it the
 * scopes; the client then gets its token from /token like anyone.
 */
async function tenantToken(client: Record<string, any>, scopes: string): Promise<string> {
  const { runtime } = fx.svc.stack;
  const api = await oauthDeps(runtime).findResource(DEFAULT_TENANT, runtime.config.managementAudience);
  const names = new Map(Object.entries(api!.scope_names).map(([id, name]) => [name, id]));
  const linked = await fx.call('POST', `/clients/${client.id}/resources`, { body: { resources: [api!.id] } });
  expect(linked.status, JSON.stringify(linked.body)).toBe(204);
  const grant = { permissions: [{ resource_id: api!.id, scopes: scopes.split(' ').map((n) => names.get(n)!) }] };
  expect((await fx.call('POST', `/clients/${client.id}/permissions`, { body: grant })).status).toBe(204);
  const res = await fx.token(client.id, client.client_secret, runtime.config.managementAudience, scopes);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const token = res.body.access_token as string;
  // the token belongs to the client's tenant: the management API confines it there
  expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).tenant_id).toBe(client.tenant_id);
  return token;
}

beforeAll(async () => {
  fx = await clientsFixture({ MULTI_TENANT: 'true' });
  tenantB = await fx.createTenant('tenant-b');
  bound = await fx.createClient({ client_name: 'tenant B admin', tenant_id: tenantB, is_global: false });
  boundToken = await tenantToken(bound, CLIENT_SCOPES);
  other = await fx.createClient({ client_name: 'default tenant client' });
});
afterAll(async () => fx?.stop());

const asBound = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  fx.call(method, path, { ...options, token: boundToken });

describe('a global caller (the Default Client) picks the tenant (docs/contract.md §4)', () => {
  it('creates in another tenant by body tenant_id or by the tenant_id header; global by default', async () => {
    const byBody = await fx.createClient({ tenant_id: tenantB });
    expect(byBody).toMatchObject({ tenant_id: tenantB, is_global: true });
    const byHeader = await fx.call('POST', '/clients', { body: { client_name: 'h' }, headers: { tenant_id: tenantB } });
    expect(byHeader.status).toBe(201);
    expect(byHeader.body.tenant_id).toBe(tenantB);
  });

  it('an unknown tenant is 404, by body or by header', async () => {
    expect((await fx.call('POST', '/clients', { body: { client_name: 'x', tenant_id: UNKNOWN_ID } })).status).toBe(404);
    expect((await fx.call('POST', '/clients', { body: { client_name: 'x' }, headers: { tenant_id: UNKNOWN_ID } })).status).toBe(404);
    expect((await fx.call('GET', '/clients', { headers: { tenant_id: 'nope' } })).status).toBe(400);
  });

  it('lists one tenant at a time; reads any tenant by id', async () => {
    const mine = (await fx.call('GET', '/clients?limit=100')).body.items;
    expect(mine.every((c: any) => c.tenant_id === DEFAULT_TENANT)).toBe(true);
    const b = (await fx.call('GET', '/clients?limit=100', { headers: { tenant_id: tenantB } })).body.items;
    expect(b.length).toBeGreaterThan(0);
    expect(b.every((c: any) => c.tenant_id === tenantB)).toBe(true);
    expect(b.map((c: any) => c.id)).toContain(bound.id);
    expect((await fx.call('GET', `/clients/${bound.id}`)).status).toBe(200);
  });

  it('moves a client without links to another tenant (counts follow); with links: 409', async () => {
    const count = async (tenant: string) =>
      (await fx.call('GET', '/clients?total_count=true&limit=1', { headers: { tenant_id: tenant } })).body.total_count;
    const c = await fx.createClient();
    const [defaultBefore, bBefore] = [await count(DEFAULT_TENANT), await count(tenantB)];
    const moved = await fx.call('PATCH', `/clients/${c.id}`, { body: { tenant_id: tenantB } });
    expect(moved.status).toBe(200);
    expect(moved.body.tenant_id).toBe(tenantB);
    expect([await count(DEFAULT_TENANT), await count(tenantB)]).toEqual([defaultBefore - 1, bBefore + 1]);
    expect((await fx.call('PATCH', `/clients/${c.id}`, { body: { tenant_id: UNKNOWN_ID } })).status).toBe(404);

    const api = await fx.createResource(['read']);
    const linked = await fx.createClient();
    await fx.call('POST', `/clients/${linked.id}/resources`, { body: { resources: [api.id] } });
    const refused = await fx.call('PATCH', `/clients/${linked.id}`, { body: { tenant_id: tenantB } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/^body\.tenant_id: /);
  });
});

describe('a non-global client only sees its own tenant (docs/contract.md §4)', () => {
  it('its list holds its tenant only', async () => {
    const page = await asBound('GET', '/clients?limit=100&total_count=true');
    expect(page.status).toBe(200);
    expect(page.body.items.every((c: any) => c.tenant_id === tenantB)).toBe(true);
    expect(page.body.items.map((c: any) => c.id)).toContain(bound.id);
    expect(page.body.items.map((c: any) => c.id)).not.toContain(other.id);
  });

  it.each([
    ['GET', ''],
    ['PATCH', '', { client_name: 'stolen' }],
    ['PUT', '', { client_name: 'stolen' }],
    ['DELETE', ''],
    ['POST', '/secret'],
    ['GET', '/resources'],
    ['POST', '/resources', { resources: [UNKNOWN_ID] }],
    ['DELETE', '/resources', { resources: [UNKNOWN_ID] }],
    ['GET', '/permissions'],
    ['POST', '/permissions', { permissions: [{ resource_id: UNKNOWN_ID, scopes: [UNKNOWN_ID] }] }],
    ['DELETE', '/permissions', { permissions: [{ resource_id: UNKNOWN_ID, scopes: [UNKNOWN_ID] }] }],
  ])("another tenant's client: %s /clients/{id}%s → 404", async (method, suffix, body?: unknown) => {
    const res = await asBound(method, `/clients/${other.id}${suffix}`, body === undefined ? {} : { body });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('the tenant_id header naming another tenant is 403; its own is fine', async () => {
    const res = await asBound('GET', '/clients', { headers: { tenant_id: DEFAULT_TENANT } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect((await asBound('GET', '/clients', { headers: { tenant_id: tenantB } })).status).toBe(200);
    expect((await asBound('POST', '/clients', { body: { client_name: 'x' }, headers: { tenant_id: DEFAULT_TENANT } })).status).toBe(403);
  });

  it('creates in its own tenant, non-global by default; another tenant or is_global=true: 403', async () => {
    const res = await asBound('POST', '/clients', { body: { client_name: 'made by B' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tenant_id: tenantB, is_global: false, created_by: bound.id });
    expect((await asBound('POST', '/clients', { body: { client_name: 'x', tenant_id: DEFAULT_TENANT } })).status).toBe(403);
    expect((await asBound('POST', '/clients', { body: { client_name: 'x', is_global: true } })).status).toBe(403);
    expect((await asBound('PATCH', `/clients/${res.body.id}`, { body: { is_global: true } })).status).toBe(403);
    expect((await asBound('PATCH', `/clients/${res.body.id}`, { body: { tenant_id: DEFAULT_TENANT } })).status).toBe(403);
    expect((await asBound('PATCH', `/clients/${res.body.id}`, { body: { client_description: 'mine' } })).status).toBe(200);
  });

  it('sees a global client of its tenant but cannot change it or read its secret', async () => {
    const g = await fx.createClient({ tenant_id: tenantB, is_global: true });
    const read = await asBound('GET', `/clients/${g.id}`);
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBeUndefined();
    for (const [method, suffix, body] of [
      ['PATCH', '', { client_name: 'x' }],
      ['DELETE', ''],
      ['POST', '/secret'],
      ['POST', '/resources', { resources: [UNKNOWN_ID] }],
    ] as const) {
      const res = await asBound(method, `/clients/${g.id}${suffix}`, body === undefined ? {} : { body });
      expect(res.status, `${method} ${suffix}`).toBe(403);
    }
    // Its own tenant's non-global clients: secret readable with read:client_keys.
    expect((await asBound('GET', `/clients/${bound.id}`)).body.client_secret).toBe(bound.client_secret);
  });

  it("links only its tenant's resources: another tenant's resource is 404", async () => {
    const inB = await fx.createResource(['read'], { tenant_id: tenantB });
    const inDefault = await fx.createResource(['read']);
    const target = (await asBound('POST', '/clients', { body: { client_name: 'worker' } })).body;
    expect((await asBound('POST', `/clients/${target.id}/resources`, { body: { resources: [inDefault.id] } })).status).toBe(404);
    expect((await asBound('POST', `/clients/${target.id}/resources`, { body: { resources: [inB.id] } })).status).toBe(204);
    expect(
      (
        await asBound('POST', `/clients/${target.id}/permissions`, {
          body: { permissions: [{ resource_id: inDefault.id, scopes: [inDefault.scope('read')] }] },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await asBound('POST', `/clients/${target.id}/permissions`, {
          body: { permissions: [{ resource_id: inB.id, scopes: [inB.scope('read')] }] },
        })
      ).status,
    ).toBe(204);
    const token = await fx.token(target.id, target.client_secret, inB.audience);
    expect(token.status).toBe(200);
    expect(fx.scopesOf(token.body.access_token)).toEqual(['read']);
  });
});
