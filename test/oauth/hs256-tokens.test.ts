import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

let svc: TestService;
let admin: string;
const SECRET = 'a-resource-secret-of-at-least-32-bytes!!';
const AUDIENCE = 'https://orders.example.com/api';

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
});
afterAll(async () => svc?.stop());

async function manage(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${svc.url}/identity/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** A new Resource with its own HS256 secret (not linked to any client). */
async function hs256Resource(name: string) {
  const audience = `https://hs-${randomUUID()}.example.com/api`;
  const secret = `${randomUUID()}-${randomUUID()}`;
  const resource = await manage('POST', '/resources', {
    resource_type: 'api',
    resource_name: name,
    resource_metadata: { identifier_url: audience, signing_algorithm: 'HS256', signing_secret: secret },
  });
  return { audience, secret, resource };
}

const basic = () => ({ authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' });

describe('tokens of a Resource with its own HS256 secret', () => {
  it('are minted with the secret, introspect as active, and revoke like any other', async () => {
    const resource = await manage('POST', '/resources', {
      resource_type: 'api',
      resource_name: 'Orders',
      resource_metadata: { identifier_url: AUDIENCE, signing_algorithm: 'HS256', signing_secret: SECRET, token_lifetime: 600 },
    });
    const scope = await manage('POST', `/resources/${resource.id}/scopes`, { scope_name: 'read:orders', scope_description: 'Read orders' });
    await manage('POST', `/clients/${svc.clientId}/resources`, { resources: [resource.id] });
    await manage('POST', `/clients/${svc.clientId}/permissions`, { permissions: [{ resource_id: resource.id, scopes: [scope.id] }] });

    const tokenRes = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: basic(),
      body: new URLSearchParams({ grant_type: 'client_credentials', audience: AUDIENCE }),
    });
    expect(tokenRes.status).toBe(200);
    const { access_token, expires_in } = (await tokenRes.json()) as { access_token: string; expires_in: number };
    expect(expires_in).toBe(600);
    const { payload, protectedHeader } = await jwtVerify(access_token, new TextEncoder().encode(SECRET), {
      issuer: svc.url,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload.scope).toBe('read:orders');

    const info = async () =>
      (await (
        await fetch(`${svc.url}/introspect`, { method: 'POST', headers: basic(), body: new URLSearchParams({ token: access_token }) })
      ).json()) as any;
    expect(await info()).toMatchObject({ active: true, aud: AUDIENCE, scope: 'read:orders', client_id: svc.clientId });

    // the same token with a tampered payload is inactive
    const [h, , s] = access_token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, scope: 'write:orders' })).toString('base64url')}.${s}`;
    const forgedInfo = await fetch(`${svc.url}/tokeninfo`, {
      method: 'POST',
      headers: basic(),
      body: new URLSearchParams({ token: forged }),
    });
    expect(await forgedInfo.json()).toEqual({ active: false });

    const revoked = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: basic(),
      body: new URLSearchParams({ token: access_token }),
    });
    expect(revoked.status).toBe(200);
    expect(await info()).toEqual({ active: false });
  });

  it("a secret holder's out-of-range claims make a token inactive, never a 500 (exp 1e15, a 3,000-character jti)", async () => {
    const { audience, secret, resource } = await hs256Resource('Odd claims');
    await manage('POST', `/clients/${svc.clientId}/resources`, { resources: [resource.id] });
    const now = Math.floor(Date.now() / 1000);
    const mint = (claims: { exp?: number; jti?: string }) =>
      new SignJWT({ client_id: svc.clientId, tenant_id: resource.tenant_id, scope: '' })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(svc.url)
        .setAudience(audience)
        .setSubject(svc.clientId)
        .setJti(claims.jti ?? randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(claims.exp ?? now + 600)
        .sign(new TextEncoder().encode(secret));
    const post = async (path: string, token: string) => {
      const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: basic(), body: new URLSearchParams({ token }) });
      return { status: res.status, body: await res.text() };
    };
    // The setup is sound: a token with ordinary claims is active.
    expect(JSON.parse((await post('/tokeninfo', await mint({}))).body)).toMatchObject({ active: true });
    const farExp = await mint({ exp: 1e15 });
    for (const path of ['/tokeninfo', '/introspect']) expect(await post(path, farExp)).toEqual({ status: 200, body: '{"active":false}' });
    const longJti = await mint({ jti: 'j'.repeat(3000) });
    // RFC 7009 §2.2: an invalid token is a 200 at /revoke.
    expect((await post('/revoke', longJti)).status).toBe(200);
    expect(await post('/tokeninfo', longJti)).toEqual({ status: 200, body: '{"active":false}' });
  });

  it('a user token for an HS256 Resource the client is not linked to introspects active and revokes (docs/contract.md §7.1: no link needed)', async () => {
    const { audience, secret, resource } = await hs256Resource('Unlinked');
    const runtime = svc.stack.runtime;
    const deps = oauthDeps(runtime);
    const user = await putUser(runtime);
    const client = (await deps.findClient(svc.clientId))!;
    expect(client.resources.has(resource.id)).toBe(false);
    const minted = await issueUserTokens(
      {
        client,
        user,
        request: { scope: 'openid', audience },
        authTime: Math.floor(Date.now() / 1000),
        authorizedAt: new Date().toISOString(),
      },
      deps,
    );
    const { protectedHeader, payload } = await jwtVerify(minted.access_token, new TextEncoder().encode(secret), {
      audience,
      typ: 'at+jwt',
    });
    expect([protectedHeader.alg, payload.sub]).toEqual(['HS256', user.id]);
    const info = async () =>
      (await (
        await fetch(`${svc.url}/introspect`, {
          method: 'POST',
          headers: basic(),
          body: new URLSearchParams({ token: minted.access_token }),
        })
      ).json()) as any;
    expect(await info()).toMatchObject({ active: true, sub: user.id, aud: audience, client_id: svc.clientId });
    const revoked = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: basic(),
      body: new URLSearchParams({ token: minted.access_token }),
    });
    expect(revoked.status).toBe(200);
    expect(await info()).toEqual({ active: false });
  });
});
