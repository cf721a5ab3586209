import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/** Each test names a hole an attacker would try and shows it closed, over HTTP against the local service. */
let svc: TestService;
let admin: string;

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
});
afterAll(async () => svc?.stop());

async function manage(method: string, path: string, body?: unknown, token = admin): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/identity/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const form = (p: Record<string, string>) => new URLSearchParams(p);
const post = (path: string, body: URLSearchParams, headers: Record<string, string>) =>
  fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

async function systemResourceId(): Promise<string> {
  const page = await manage('GET', '/resources?limit=100');
  return page.body.items.find((r: any) => r.resource_metadata.is_system).id;
}

async function confidentialClientWithManagementScope(scope: string) {
  const created = await manage('POST', '/clients', {
    client_name: `c-${Math.random()}`,
    client_metadata: { grant_types: ['client_credentials'] },
  });
  expect(created.status).toBe(201);
  const sys = await systemResourceId();
  const scopes = await manage('GET', `/resources/${sys}/scopes?limit=100`);
  const scopeId = scopes.body.items.find((s: any) => s.scope_name === scope).id;
  expect((await manage('POST', `/clients/${created.body.id}/resources`, { resources: [sys] })).status).toBe(204);
  expect(
    (await manage('POST', `/clients/${created.body.id}/permissions`, { permissions: [{ resource_id: sys, scopes: [scopeId] }] })).status,
  ).toBe(204);
  const tokenRes = await post('/token', form({ grant_type: 'client_credentials', audience: svc.managementAudience }), {
    authorization: basicAuth(created.body.id, created.body.client_secret),
  });
  expect(tokenRes.status).toBe(200);
  return {
    id: created.body.id as string,
    secret: created.body.client_secret as string,
    token: ((await tokenRes.json()) as any).access_token as string,
  };
}

describe('the management API identifier is reserved for the system resource (docs/contract.md §4)', () => {
  it('no resource can be created with it or moved to it: 403', async () => {
    const made = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'fake',
      resource_metadata: { identifier_url: svc.managementAudience },
    });
    expect(made.status).toBe(403);
    expect(made.body.message).toMatch(/^body\.resource_metadata\.identifier_url: /);
    const other = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'other',
      resource_metadata: { identifier_url: 'https://other.example/api' },
    });
    expect(other.status).toBe(201);
    const moved = await manage('PATCH', `/resources/${other.body.id}`, { resource_metadata: { identifier_url: svc.managementAudience } });
    expect(moved.status).toBe(403);
  });
});

describe('introspection callers and HS256 tokens (RFC 7662 §2.1)', () => {
  it('an HS256 token signed with a secret the caller chose can neither authenticate a Bearer caller nor introspect as active', async () => {
    const secret = 'a-secret-chosen-by-whoever-creates-it-000';
    const audience = 'https://forged.example/api';
    const made = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'hs',
      resource_metadata: { identifier_url: audience, signing_algorithm: 'HS256', signing_secret: secret },
    });
    expect(made.status).toBe(201);
    const now = Math.floor(Date.now() / 1000);
    // claims the Default Client, which was never authorized on this resource
    const forged = await new SignJWT({ client_id: svc.clientId, tenant_id: made.body.tenant_id, scope: 'x', jti: `f-${now}` })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(svc.url)
      .setSubject(svc.clientId)
      .setAudience(audience)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + 300)
      .sign(new TextEncoder().encode(secret));
    const subject = await svc.managementToken('read:clients');
    const asBearer = await post('/tokeninfo', form({ token: subject }), { authorization: `Bearer ${forged}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect(((await asBearer.json()) as any).error).toBe('invalid_token');
    const introspected = await post('/introspect', form({ token: forged }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
    expect(await introspected.json()).toEqual({ active: false });
  });

  it("a client cannot revoke another client's token (RFC 7009 §2.1): 400 unauthorized_client, and the token stays active", async () => {
    const other = await confidentialClientWithManagementScope('read:clients');
    const res = await post('/revoke', form({ token: other.token }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('unauthorized_client');
    const info = await post('/tokeninfo', form({ token: other.token }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
    expect(((await info.json()) as any).active).toBe(true);
  });
});

describe("a deleted client's tokens die with it", () => {
  it('the management API refuses them (401) and introspection reports them inactive', async () => {
    const doomed = await confidentialClientWithManagementScope('read:clients');
    expect((await manage('GET', '/clients', undefined, doomed.token)).status).toBe(200);
    expect((await manage('DELETE', `/clients/${doomed.id}`)).status).toBe(204);
    const after = await manage('GET', '/clients', undefined, doomed.token);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    const info = await post('/introspect', form({ token: doomed.token }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
    expect(await info.json()).toEqual({ active: false });
  });
});

describe('the Default Client keeps its way in (docs/contract.md §4)', () => {
  it('its link to the management API cannot be revoked from the resource side either: 403', async () => {
    const sys = await systemResourceId();
    const res = await manage('DELETE', `/resources/${sys}/clients`, { clients: [svc.clientId] });
    expect(res.status).toBe(403);
    expect((await svc.managementToken('read:clients')).length).toBeGreaterThan(0);
  });

  it('its secret cannot be given an expiry: 403', async () => {
    const res = await manage('PATCH', `/clients/${svc.clientId}`, {
      client_secret_expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/client_secret_expires_at/);
  });
});

describe('making a public client confidential mints a secret: that needs update:client_keys', () => {
  it('is 403 insufficient_scope without it, 200 with the new secret with it', async () => {
    const pub = await manage('POST', '/clients', { client_name: 'spa', is_public: true });
    expect(pub.status).toBe(201);
    const limited = await svc.managementToken('update:clients');
    const refused = await manage('PATCH', `/clients/${pub.body.id}`, { is_public: false }, limited);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    const allowed = await manage(
      'PATCH',
      `/clients/${pub.body.id}`,
      { is_public: false, client_metadata: { grant_types: ['client_credentials'] } },
      await svc.managementToken('update:clients update:client_keys'),
    );
    expect(allowed.status).toBe(200);
    expect(allowed.body.client_secret).toEqual(expect.any(String));
  });
});

describe('ids in paths', () => {
  it('an upper-case spelling of an id names the same record (ids are stored lower-case)', async () => {
    const made = await manage('POST', '/clients', { client_name: 'case' });
    expect(made.status).toBe(201);
    const upper = await manage('GET', `/clients/${String(made.body.id).toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body.id).toBe(made.body.id);
    const sys = await systemResourceId();
    expect((await manage('GET', `/resources/${sys.toUpperCase()}`)).body.id).toBe(sys);
  });
});
