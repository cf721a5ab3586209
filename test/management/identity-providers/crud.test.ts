import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT, UNKNOWN_ID } from '../../support/management/clients-fixture.ts';
import {
  type IdentityProvidersFixture,
  identityProvidersFixture,
  PROVIDER_KEYS,
  providerBody,
} from '../../support/management/identity-providers-fixture.ts';

let fx: IdentityProvidersFixture;
let tenant: Record<string, any>;
let base: string;
beforeAll(async () => {
  fx = await identityProvidersFixture();
  tenant = await fx.createTenantApi();
  base = `/tenants/${tenant.id}/identity-providers`;
});
afterAll(async () => fx?.stop());

const SECRET = 'provider-secret-1f0e2d3c4b5a';

describe('Tenant Identity Providers CRUD over HTTP (docs/contract.md §6, docs/federation.md "Identity providers")', () => {
  it('POST creates: 201 with the defaults, no secret in the answer; record, marker and counter stored, secret sealed', async () => {
    const body = providerBody({ client_secret: SECRET, audience: 'our-audience', jwks_uri: 'https://keys.example.com/jwks.json' });
    const res = await fx.call('POST', base, { body });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(res.body).sort()).toEqual([...PROVIDER_KEYS, 'audience', 'jwks_uri'].sort());
    expect(res.body).toMatchObject({
      tenant_id: tenant.id,
      provider_name: body.provider_name,
      provider_type: 'oidc',
      issuer: body.issuer,
      client_id: body.client_id,
      scopes: ['openid', 'email', 'profile'],
      enabled: true,
      has_client_secret: true,
      created_by: fx.svc.clientId,
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    const item = await fx.providerItem(tenant.id, res.body.id);
    expect(item).toMatchObject({
      version: 1,
      type: 'IdentityProvider',
      GSI1PK: `TENANT#${tenant.id}#IDENTITY_PROVIDERS`,
      GSI2PK: `IDP_ISSUER#${tenant.id}#${body.issuer}`,
      GSI2SK: res.body.id,
    });
    expect(item!.client_secret_sealed).toEqual(expect.any(String));
    expect(await fx.svc.stack.runtime.secretBox.open(item!.client_secret_sealed)).toBe(SECRET);
    // The plaintext is in no item of the tenant's partition, nor in its marker.
    expect(JSON.stringify(await fx.tenantPartition(tenant.id))).not.toContain(SECRET);
    expect((await fx.nameMarker(tenant.id, body.provider_name as string))?.target_id).toBe(res.body.id);
    expect(await fx.counter(tenant.id)).toBe(1);

    const got = await fx.call('GET', `${base}/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.get('cache-control')).toBeNull();
    const list = await fx.call('GET', `${base}?total_count=true`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total_count: 1, count: 1, has_more: false, items: [res.body] });
    expect(JSON.stringify(list.body)).not.toContain('sealed');
  });

  it('provider_name is unique per tenant: 409 naming body.provider_name, nothing stored; another tenant may use it', async () => {
    const a = await fx.createProvider(tenant.id, { provider_name: 'same-name' });
    const count = await fx.counter(tenant.id);
    const dup = await fx.call('POST', base, { body: providerBody({ provider_name: 'same-name' }) });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ code: 'conflict', message: expect.stringContaining('body.provider_name') });
    expect((await fx.nameMarker(tenant.id, 'same-name'))?.target_id).toBe(a.id);
    expect(await fx.counter(tenant.id)).toBe(count);
    const elsewhere = await fx.call('POST', `/tenants/${DEFAULT_TENANT}/identity-providers`, {
      body: providerBody({ provider_name: 'same-name' }),
    });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.tenant_id).toBe(DEFAULT_TENANT);
  });

  it('PATCH merges, renames (the marker moves), sets, replaces and removes the secret, null removes optional URLs', async () => {
    const p = await fx.createProvider(tenant.id, { discovery_url: 'https://disc.example.com/.well-known/openid-configuration' });
    expect(p.has_client_secret).toBe(false);
    const renamed = await fx.call('PATCH', `${base}/${p.id}`, { body: { provider_name: `${p.provider_name}-new`, client_secret: SECRET } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ provider_name: `${p.provider_name}-new`, issuer: p.issuer, has_client_secret: true });
    expect(renamed.body.created_at).toBe(p.created_at);
    expect(await fx.nameMarker(tenant.id, p.provider_name)).toBeUndefined();
    expect((await fx.nameMarker(tenant.id, `${p.provider_name}-new`))?.target_id).toBe(p.id);
    const first = (await fx.providerItem(tenant.id, p.id))!;
    expect(await fx.svc.stack.runtime.secretBox.open(first.client_secret_sealed)).toBe(SECRET);

    const replaced = await fx.call('PUT', `${base}/${p.id}`, { body: { client_secret: 'another-secret', enabled: false } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ enabled: false, has_client_secret: true });
    const second = (await fx.providerItem(tenant.id, p.id))!;
    expect(await fx.svc.stack.runtime.secretBox.open(second.client_secret_sealed)).toBe('another-secret');

    const removed = await fx.call('PATCH', `${base}/${p.id}`, {
      body: { client_secret: null, discovery_url: null, scopes: ['openid'], issuer: 'https://moved.example.com' },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ has_client_secret: false, scopes: ['openid'], issuer: 'https://moved.example.com' });
    expect(removed.body).not.toHaveProperty('discovery_url');
    const item = (await fx.providerItem(tenant.id, p.id))!;
    expect(item).not.toHaveProperty('client_secret_sealed');
    expect(item).not.toHaveProperty('discovery_url');
    expect(item).toMatchObject({ version: 4, GSI2PK: `IDP_ISSUER#${tenant.id}#https://moved.example.com` });
  });

  it('concurrent PATCHes of different fields all land (no lost update)', async () => {
    const p = await fx.createProvider(tenant.id);
    const patches = [
      { client_id: 'rp-concurrent' },
      { audience: 'aud-concurrent' },
      { enabled: false },
      { scopes: ['openid', 'email'] },
      { jwks_uri: 'https://concurrent.example.com/jwks' },
      { client_secret: 'concurrent-secret' },
    ];
    const results = await Promise.all(patches.map((body) => fx.call('PATCH', `${base}/${p.id}`, { body })));
    expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
    const got = await fx.call('GET', `${base}/${p.id}`);
    expect(got.body).toMatchObject({
      client_id: 'rp-concurrent',
      audience: 'aud-concurrent',
      enabled: false,
      scopes: ['openid', 'email'],
      jwks_uri: 'https://concurrent.example.com/jwks',
      has_client_secret: true,
    });
    expect((await fx.providerItem(tenant.id, p.id))?.version).toBe(1 + patches.length);
  });

  it('two concurrent creates with one name: exactly one 201, the other 409', async () => {
    const results = await Promise.all([1, 2].map(() => fx.call('POST', base, { body: providerBody({ provider_name: 'raced-name' }) })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = results.find((r) => r.status === 201)!;
    expect((await fx.nameMarker(tenant.id, 'raced-name'))?.target_id).toBe(winner.body.id);
  });

  it('DELETE: 204, record, marker and count gone; again 404; unknown 404', async () => {
    const p = await fx.createProvider(tenant.id);
    const count = await fx.counter(tenant.id);
    const res = await fx.call('DELETE', `${base}/${p.id}`);
    expect(res.status).toBe(204);
    expect(await fx.providerItem(tenant.id, p.id)).toBeUndefined();
    expect(await fx.nameMarker(tenant.id, p.provider_name)).toBeUndefined();
    expect(await fx.counter(tenant.id)).toBe(count - 1);
    const again = await fx.call('DELETE', `${base}/${p.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'not_found', message: expect.stringContaining('Identity provider') });
    expect((await fx.call('GET', `${base}/${p.id}`)).status).toBe(404);
    expect((await fx.call('PATCH', `${base}/${UNKNOWN_ID}`, { body: { enabled: false } })).status).toBe(404);
    // The name is free again.
    expect((await fx.call('POST', base, { body: providerBody({ provider_name: p.provider_name }) })).status).toBe(201);
  });

  it('a tenant holding a provider is not deletable (409 naming identity_providers); once it is gone, it is', async () => {
    const t = await fx.createTenantApi();
    const p = await fx.createProvider(t.id);
    const res = await fx.call('DELETE', `/tenants/${t.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 'conflict', message: expect.stringContaining('identity_providers (1)') });
    expect(await fx.tenantItem(t.id)).toBeDefined();
    expect((await fx.call('DELETE', `/tenants/${t.id}/identity-providers/${p.id}`)).status).toBe(204);
    expect((await fx.call('DELETE', `/tenants/${t.id}`)).status).toBe(204);
    expect(await fx.tenantItem(t.id)).toBeUndefined();
    // The deleted tenant's counter is closed: a create racing the delete could not land in it.
    expect(await fx.item({ PK: `TENANT#${t.id}`, SK: 'COUNT#IDENTITY_PROVIDERS' })).toMatchObject({ count: 0, tenant_deleted: true });
    const late = await fx.call('POST', `/tenants/${t.id}/identity-providers`, { body: providerBody() });
    expect(late.status).toBe(404);
  });
});
