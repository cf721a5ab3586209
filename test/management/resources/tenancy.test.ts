import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID, type ResourcesFixture, resourcesFixture, UNKNOWN_ID } from '../../support/management/resources-fixture.ts';
import { tenancyFixture } from '../../support/management/resources-tenancy.ts';

/** docs/contract.md §4 in multi-tenant mode, for Resources, Resource Scopes and Resource Clients. */
let fx: ResourcesFixture;
let tenantB: string;
let admin: { client: { id: string }; token: string; managementApiId: string };
/** A resource of the default tenant, invisible to tenant B's admin. */
let foreign: Record<string, any>;
let foreignScope: Record<string, any>;

beforeAll(async () => {
  fx = await resourcesFixture({ MULTI_TENANT: 'true' });
  const tenancy = tenancyFixture(fx);
  tenantB = await tenancy.createTenant('tenant-b');
  admin = await tenancy.tenantAdmin(tenantB);
  foreign = await fx.createResource({ resource_name: 'default tenant API' });
  foreignScope = await fx.createScope(foreign.id, 'read');
});
afterAll(async () => fx?.stop());

const asB = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  fx.call(method, path, { ...options, token: admin.token });

describe('a global caller (the Default Client) chooses the tenant with the tenant_id header', () => {
  it("creates and lists in the header's tenant; without it, the default tenant; reads any tenant by id", async () => {
    const made = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'B by header' },
      headers: { tenant_id: tenantB },
    });
    expect(made.status).toBe(201);
    expect(made.body.tenant_id).toBe(tenantB);
    const inB = (await fx.call('GET', '/resources?limit=100', { headers: { tenant_id: tenantB } })).body.items as any[];
    expect(inB.every((r) => r.tenant_id === tenantB)).toBe(true);
    expect(inB.map((r) => r.id)).toContain(made.body.id);
    const inDefault = (await fx.call('GET', '/resources?limit=100')).body.items as any[];
    expect(inDefault.every((r) => r.tenant_id === DEFAULT_TENANT_ID)).toBe(true);
    expect(inDefault.map((r) => r.id)).toContain(foreign.id);
    expect((await fx.call('GET', `/resources/${made.body.id}`)).status).toBe(200);
  });

  it('identifier_url is unique across tenants: not even a global caller reuses one in another tenant (stage-identifiers.test.ts)', async () => {
    const audience = fx.audience();
    await fx.createResource({ resource_metadata: { identifier_url: audience } });
    const inB = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'same id', resource_metadata: { identifier_url: audience } },
      headers: { tenant_id: tenantB },
    });
    expect(inB.status).toBe(409);
    expect(inB.body.message).toMatch(/^body\.resource_metadata\.identifier_url: /);
    const again = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'dup', resource_metadata: { identifier_url: audience } },
      headers: { tenant_id: tenantB },
    });
    expect(again.status).toBe(409);
  });

  it('an unknown tenant in the header is 404 on create; a malformed one is 400', async () => {
    const res = await fx.call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'x' },
      headers: { tenant_id: UNKNOWN_ID },
    });
    expect(res.status).toBe(404);
    expect((await fx.call('GET', '/resources', { headers: { tenant_id: 'nope' } })).body.message).toMatch(/^header\.tenant_id: /);
  });
});

describe('a non-global client sees only its own tenant (others are 404)', () => {
  it('its list holds its tenant only; total_count counts its tenant', async () => {
    const page = await asB('GET', '/resources?limit=100&total_count=true');
    expect(page.status).toBe(200);
    expect(page.body.items.every((r: any) => r.tenant_id === tenantB)).toBe(true);
    expect(page.body.items.map((r: any) => r.id)).not.toContain(foreign.id);
    expect(page.body.total_count).toBe(page.body.count);
  });

  it.each([
    ['GET', ''],
    ['PATCH', '', { resource_name: 'stolen' }],
    ['PUT', '', { resource_name: 'stolen' }],
    ['DELETE', ''],
    ['GET', '/scopes'],
    ['POST', '/scopes', { scope_name: 'evil' }],
    ['GET', '/scopes/{scope}'],
    ['PATCH', '/scopes/{scope}', { scope_description: 'stolen' }],
    ['DELETE', '/scopes/{scope}'],
    ['GET', '/clients'],
    ['POST', '/clients', { clients: [UNKNOWN_ID] }],
    ['DELETE', '/clients', { clients: [UNKNOWN_ID] }],
  ])("another tenant's resource: %s /resources/{id}%s → 404, nothing changes", async (method, suffix, body?: unknown) => {
    const path = `/resources/${foreign.id}${suffix.replace('{scope}', foreignScope.id)}`;
    const res = await asB(method, path, body === undefined ? {} : { body });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const now = await fx.getResource(foreign.id);
    expect(now).toMatchObject({ resource_name: 'default tenant API', aggregations: { scopes: 1, clients: 0 } });
  });

  it('the tenant_id header naming another tenant is 403; its own is fine', async () => {
    const res = await asB('GET', '/resources', { headers: { tenant_id: DEFAULT_TENANT_ID } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    expect(
      (await asB('POST', '/resources', { body: { resource_type: 'api', resource_name: 'x' }, headers: { tenant_id: DEFAULT_TENANT_ID } }))
        .status,
    ).toBe(403);
    expect((await asB('GET', '/resources', { headers: { tenant_id: tenantB } })).status).toBe(200);
  });

  it('creates, modifies, scopes and deletes in its own tenant', async () => {
    const made = await asB('POST', '/resources', { body: { resource_type: 'api', resource_name: 'B API' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ tenant_id: tenantB, created_by: admin.client.id });
    const id = made.body.id;
    expect((await asB('PATCH', `/resources/${id}`, { body: { resource_description: 'mine' } })).status).toBe(200);
    const scope = await asB('POST', `/resources/${id}/scopes`, { body: { scope_name: 'read' } });
    expect(scope.status).toBe(201);
    expect(scope.body.tenant_id).toBe(tenantB);
    expect((await asB('GET', `/resources/${id}/scopes/${scope.body.id}`)).status).toBe(200);
    expect((await asB('DELETE', `/resources/${id}`)).status).toBe(204);
  });

  it("authorizes its own tenant's clients; another tenant's client is 404 and nothing changes", async () => {
    const mine = (await asB('POST', '/resources', { body: { resource_type: 'api', resource_name: 'links' } })).body;
    const own = await fx.createClient({ tenant_id: tenantB, is_global: false });
    const stranger = await fx.createClient({ is_global: false });
    const refused = await asB('POST', `/resources/${mine.id}/clients`, { body: { clients: [own.id, stranger.id] } });
    expect(refused.status).toBe(404);
    expect((await asB('GET', `/resources/${mine.id}/clients`)).body.count).toBe(0);
    expect((await asB('POST', `/resources/${mine.id}/clients`, { body: { clients: [own.id] } })).status).toBe(204);
    const list = await asB('GET', `/resources/${mine.id}/clients?expand=all`);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        client_id: own.id,
        tenant_id: tenantB,
        authorized: true,
        client_data: expect.objectContaining({ id: own.id }),
      }),
    ]);
    expect((await asB('DELETE', `/resources/${mine.id}/clients`, { body: { clients: [stranger.id] } })).status).toBe(404);
  });

  it('a global client of another tenant linked to its resource is listed, with client_data null', async () => {
    const mine = (await asB('POST', '/resources', { body: { resource_type: 'api', resource_name: 'shared' } })).body;
    const globalElsewhere = await fx.createClient({ is_global: true });
    await fx.authorize(mine.id, [globalElsewhere.id]); // the Default Client (global) may link across tenants
    const seenByB = await asB('GET', `/resources/${mine.id}/clients?expand=all`);
    expect(seenByB.body.items).toEqual([expect.objectContaining({ client_id: globalElsewhere.id, client_data: null })]);
    const seenByGlobal = await fx.call('GET', `/resources/${mine.id}/clients?expand=all`);
    expect(seenByGlobal.body.items[0].client_data).toMatchObject({ id: globalElsewhere.id });
    expect((await asB('GET', `/resources/${mine.id}`)).body.aggregations.clients).toBe(1);
  });
});
