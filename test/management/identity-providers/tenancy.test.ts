import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import {
  IDP_SCOPES,
  type IdentityProvidersFixture,
  identityProvidersFixture,
  providerBody,
} from '../../support/management/identity-providers-fixture.ts';

/** docs/tenants.md "Who may call", for the providers under /tenants/{tenant_id}. */
describe('Identity providers and callers, multi-tenant mode (docs/contract.md §4)', () => {
  let fx: IdentityProvidersFixture;
  let tenantB: Record<string, any>;
  let other: Record<string, any>;
  let otherProvider: Record<string, any>;
  let bCall: (method: string, path: string, body?: unknown) => ReturnType<IdentityProvidersFixture['call']>;
  beforeAll(async () => {
    fx = await identityProvidersFixture();
    tenantB = await fx.createTenantApi();
    other = await fx.createTenantApi();
    otherProvider = await fx.createProvider(other.id, { provider_name: 'theirs' });
    const { token } = await fx.boundToken(tenantB.id, IDP_SCOPES);
    bCall = (method, path, body) => fx.call(method, path, { token, ...(body !== undefined ? { body } : {}) });
  });
  afterAll(async () => fx?.stop());

  it('a tenant-bound client manages its own tenant’s providers', async () => {
    const created = await bCall('POST', `/tenants/${tenantB.id}/identity-providers`, providerBody({ provider_name: 'mine' }));
    expect(created.status).toBe(201);
    expect(created.body.tenant_id).toBe(tenantB.id);
    const list = await bCall('GET', `/tenants/${tenantB.id}/identity-providers`);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([created.body]);
    const patched = await bCall('PATCH', `/tenants/${tenantB.id}/identity-providers/${created.body.id}`, { enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.enabled).toBe(false);
    expect((await bCall('DELETE', `/tenants/${tenantB.id}/identity-providers/${created.body.id}`)).status).toBe(204);
    expect(await fx.providerItem(tenantB.id, created.body.id)).toBeUndefined();
  });

  it('another tenant’s path is 404 exactly like an unknown tenant, for every method; nothing changes there', async () => {
    const requests: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', providerBody({ provider_name: 'planted' })],
      ['GET', `/${otherProvider.id}`],
      ['PATCH', `/${otherProvider.id}`, { enabled: false }],
      ['PUT', `/${otherProvider.id}`, { enabled: false }],
      ['DELETE', `/${otherProvider.id}`],
    ];
    for (const [method, rest, body] of requests) {
      const unknown = await bCall(method, `/tenants/${UNKNOWN_ID}/identity-providers${rest}`, body);
      for (const id of [other.id, DEFAULT_TENANT]) {
        const res = await bCall(method, `/tenants/${id}/identity-providers${rest}`, body);
        expect(res.status, `${method} ${id}${rest}`).toBe(404);
        expect(res.body).toEqual(unknown.body);
      }
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 'not_found', message: 'Tenant not found.' });
    }
    expect(await fx.providerItem(other.id, otherProvider.id)).toMatchObject({ enabled: true, version: 1 });
    expect(await fx.nameMarker(other.id, 'planted')).toBeUndefined();
    expect(await fx.counter(other.id)).toBe(1);
  });

  it('another tenant’s provider id under the caller’s own tenant is 404 (the read names the tenant)', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const res = await bCall(method, `/tenants/${tenantB.id}/identity-providers/${otherProvider.id}`, method === 'PATCH' ? {} : undefined);
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'Identity provider not found.' });
    }
    expect(await fx.providerItem(other.id, otherProvider.id)).toMatchObject({ version: 1 });
  });

  it('a global client reaches any tenant’s providers; an unknown tenant is 404', async () => {
    const res = await fx.call('GET', `/tenants/${other.id}/identity-providers`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((p: any) => p.id)).toEqual([otherProvider.id]);
    const created = await fx.call('POST', `/tenants/${tenantB.id}/identity-providers`, { body: providerBody() });
    expect(created.status).toBe(201);
    expect(created.body.tenant_id).toBe(tenantB.id);
    const unknown = await fx.call('POST', `/tenants/${UNKNOWN_ID}/identity-providers`, { body: providerBody() });
    expect(unknown.status).toBe(404);
    expect(await fx.counter(UNKNOWN_ID)).toBeUndefined();
  });
});

describe('Identity providers in single-tenant mode: the default tenant only', () => {
  let fx: IdentityProvidersFixture;
  beforeAll(async () => {
    fx = await identityProvidersFixture({});
  });
  afterAll(async () => fx?.stop());

  it('the default tenant’s providers are managed; any other tenant id is 404 (even one in the table)', async () => {
    const p = await fx.createProvider(DEFAULT_TENANT);
    expect(p.tenant_id).toBe(DEFAULT_TENANT);
    expect((await fx.call('GET', `/tenants/${DEFAULT_TENANT}/identity-providers/${p.id}`)).status).toBe(200);
    const stray = await fx.createTenant();
    for (const id of [UNKNOWN_ID, stray]) {
      const res = await fx.call('POST', `/tenants/${id}/identity-providers`, { body: providerBody() });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ code: 'not_found', message: 'Tenant not found.' });
      expect(await fx.counter(id)).toBeUndefined();
    }
  });
});
