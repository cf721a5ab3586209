import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IdentityProvidersFixture,
  identityProvidersFixture,
  providerBody,
} from '../../support/management/identity-providers-fixture.ts';

let fx: IdentityProvidersFixture;
let tenant: Record<string, any>;
let base: string;
let provider: Record<string, any>;
beforeAll(async () => {
  fx = await identityProvidersFixture();
  tenant = await fx.createTenantApi();
  base = `/tenants/${tenant.id}/identity-providers`;
  provider = await fx.createProvider(tenant.id, { provider_name: 'validated' });
});
afterAll(async () => fx?.stop());

const scopes = (n: number) => ['openid', ...Array.from({ length: n - 1 }, (_, i) => `s${i}`)];

describe('Identity provider input validation: 400 naming the field, nothing stored (docs/federation.md "Identity providers")', () => {
  it.each([
    ['no provider_name', { provider_name: undefined }, 'body.provider_name: is required'],
    ['provider_name with a space', { provider_name: 'a b' }, 'body.provider_name'],
    ['provider_name like a URN', { provider_name: 'urn:ietf:params:oauth:token-type:id_token' }, 'body.provider_name'],
    ['provider_name too long', { provider_name: 'x'.repeat(65) }, 'body.provider_name'],
    ['provider_name not a string', { provider_name: 7 }, 'body.provider_name'],
    ['no provider_type', { provider_type: undefined }, 'body.provider_type: is required'],
    ['another provider_type', { provider_type: 'ldap' }, 'body.provider_type: must be "oidc"'],
    ['no issuer', { issuer: undefined }, 'body.issuer: is required'],
    ['issuer not a URL', { issuer: 'idp.example.com' }, 'body.issuer'],
    ['issuer over http', { issuer: 'http://idp.example.com' }, 'body.issuer'],
    ['issuer with a query', { issuer: 'https://idp.example.com/?tenant=1' }, 'body.issuer'],
    ['issuer with a fragment', { issuer: 'https://idp.example.com/#x' }, 'body.issuer'],
    ['issuer with credentials', { issuer: 'https://user:pw@idp.example.com' }, 'body.issuer'],
    ['issuer at a private address', { issuer: 'https://10.0.0.1/realms/a' }, 'body.issuer'],
    ['issuer at the metadata service', { issuer: 'https://169.254.169.254' }, 'body.issuer'],
    ['issuer too long', { issuer: `https://idp.example.com/${'p'.repeat(600)}` }, 'body.issuer'],
    ['issuer with a control character', { issuer: 'https://idp.example.com/\u0007' }, 'body.issuer'],
    ['jwks_uri over http', { jwks_uri: 'http://keys.example.com/jwks' }, 'body.jwks_uri'],
    ['jwks_uri too long', { jwks_uri: `https://keys.example.com/${'k'.repeat(2048)}` }, 'body.jwks_uri'],
    ['discovery_url ftp', { discovery_url: 'ftp://idp.example.com/.well-known/openid-configuration' }, 'body.discovery_url'],
    ['no client_id', { client_id: undefined }, 'body.client_id: is required'],
    ['client_id blank', { client_id: '  ' }, 'body.client_id'],
    ['client_id too long', { client_id: 'c'.repeat(256) }, 'body.client_id'],
    ['client_secret not a string', { client_secret: 12 }, 'body.client_secret'],
    ['client_secret too long', { client_secret: 's'.repeat(1025) }, 'body.client_secret'],
    ['client_secret with a newline', { client_secret: 'a\nb' }, 'body.client_secret'],
    ['scopes not an array', { scopes: 'openid email' }, 'body.scopes'],
    ['scopes over 20', { scopes: scopes(21) }, 'body.scopes: must hold at most 20 scopes'],
    ['a scope over 128 characters', { scopes: ['openid', 'x'.repeat(129)] }, 'body.scopes.1'],
    ['a scope with a space', { scopes: ['openid', 'a b'] }, 'body.scopes.1'],
    ['a scope not a string', { scopes: ['openid', 5] }, 'body.scopes.1'],
    ['a repeated scope', { scopes: ['openid', 'email', 'email'] }, 'body.scopes: must not repeat'],
    ['scopes without openid', { scopes: ['email'] }, 'body.scopes: must include "openid"'],
    ['audience not a string', { audience: ['a'] }, 'body.audience'],
    ['enabled not a boolean', { enabled: 'yes' }, 'body.enabled'],
    ['unknown field', { provider_nmae: 'x' }, 'body.provider_nmae: unknown field'],
    ['client_secret_sealed is the store’s', { client_secret_sealed: 'x' }, 'body.client_secret_sealed: unknown field'],
    ['id is the store’s', { id: '019b0000-0000-7000-8000-000000000001' }, 'body.id: unknown field'],
  ])('POST: %s', async (_name, extra, message) => {
    const before = await fx.counter(tenant.id);
    const body = providerBody(extra);
    for (const [k, val] of Object.entries(body)) if (val === undefined) delete body[k];
    const res = await fx.call('POST', base, { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(message) });
    expect(await fx.counter(tenant.id)).toBe(before);
    if (typeof body.provider_name === 'string') expect(await fx.nameMarker(tenant.id, body.provider_name)).toBeUndefined();
  });

  it('a body that is not an object is 400 naming body', async () => {
    for (const body of [[1, 2], 'text', null]) {
      const res = await fx.call('POST', base, { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.message).toMatch(/^body/);
    }
  });

  it('provider_type "saml": 501 not_implemented, whatever else the body holds, and nothing is stored', async () => {
    const before = await fx.counter(tenant.id);
    for (const body of [providerBody({ provider_type: 'saml', provider_name: 'saml-one' }), { provider_type: 'saml', metadata_url: 'x' }]) {
      const res = await fx.call('POST', base, { body });
      expect(res.status).toBe(501);
      expect(res.body).toEqual({ code: 'not_implemented', message: expect.stringContaining('SAML') });
    }
    expect(await fx.counter(tenant.id)).toBe(before);
    expect(await fx.nameMarker(tenant.id, 'saml-one')).toBeUndefined();
    expect((await fx.call('GET', `${base}?q=(provider_type=saml)`)).body.count).toBe(0);
  });

  it('http on a loopback address is allowed in local mode (a test provider on 127.0.0.1)', async () => {
    const res = await fx.call('POST', base, {
      body: providerBody({ issuer: 'http://127.0.0.1:9/realm', jwks_uri: 'http://localhost:9/jwks' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ issuer: 'http://127.0.0.1:9/realm', jwks_uri: 'http://localhost:9/jwks' });
  });

  it.each([
    ['provider_name null', { provider_name: null }, 'body.provider_name'],
    ['provider_type saml', { provider_type: 'saml' }, 'body.provider_type'],
    ['issuer null', { issuer: null }, 'body.issuer'],
    ['issuer over http', { issuer: 'http://idp.example.com' }, 'body.issuer'],
    ['jwks_uri at a private address', { jwks_uri: 'https://192.168.1.1/jwks' }, 'body.jwks_uri'],
    ['scopes empty', { scopes: [] }, 'body.scopes'],
    ['enabled null', { enabled: null }, 'body.enabled'],
    ['unknown field', { has_client_secret: false }, 'body.has_client_secret: unknown field'],
    ['not an object', [1], 'body'],
  ])('PATCH: %s', async (_name, body, field) => {
    const res = await fx.call('PATCH', `${base}/${provider.id}`, { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(field) });
    expect(await fx.providerItem(tenant.id, provider.id)).toMatchObject({ provider_name: 'validated', version: 1 });
  });

  it('path ids that are not UUIDs are 400 naming path.tenant_id / path.provider_id', async () => {
    expect((await fx.call('GET', '/tenants/not-a-uuid/identity-providers')).body.message).toContain('path.tenant_id');
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const res = await fx.call(method, `${base}/not-a-uuid`, method === 'PATCH' || method === 'PUT' ? { body: {} } : {});
      expect(res.status, method).toBe(400);
      expect(res.body.message).toContain('path.provider_id');
    }
  });

  it('a body over the request size bound is refused before it is parsed', async () => {
    const res = await fx.call('POST', base, { body: providerBody({ client_secret: 'x'.repeat(200_000) }) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('no token: 401 with WWW-Authenticate; a token without the scope: 403 insufficient_scope', async () => {
    const res = await fetch(`${fx.svc.url}/identity/v1${base}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
    const token = await fx.svc.managementToken('read:tenants');
    const denied = await fx.call('GET', base, { token });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('read:identity_providers') });
  });
});

describe('Identity providers where the stage does not allow loopback http (FEDERATION_LOOPBACK_HTTP=false)', () => {
  let strict: IdentityProvidersFixture;
  beforeAll(async () => {
    strict = await identityProvidersFixture({ MULTI_TENANT: 'true', FEDERATION_LOOPBACK_HTTP: 'false' });
  });
  afterAll(async () => strict?.stop());

  it('http to loopback is 400 naming the field; nothing stored', async () => {
    const t = await strict.createTenantApi();
    for (const [field, extra] of [
      ['body.issuer', { issuer: 'http://127.0.0.1:9/realm' }],
      ['body.jwks_uri', { jwks_uri: 'http://localhost:9/jwks' }],
      ['body.discovery_url', { discovery_url: 'http://[::1]:9/.well-known/openid-configuration' }],
      ['body.issuer', { issuer: 'https://127.0.0.1/realm' }],
    ] as const) {
      const res = await strict.call('POST', `/tenants/${t.id}/identity-providers`, { body: providerBody(extra) });
      expect(res.status, field).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringContaining(field) });
    }
    expect(await strict.counter(t.id)).toBeUndefined();
  });
});
