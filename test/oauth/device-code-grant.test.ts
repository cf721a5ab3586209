import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_LINKED_MESSAGE } from '#shared/oauth/user-tokens/management-api-link.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { deviceCodeHash } from '#shared/store/sessions/device-codes-repository.ts';
import { devicePageDeps } from '#shared/wiring/pages.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * RFC 8628 over HTTP (docs/contract.md §5, §5.1, §7.8): `/device_code` (POST and GET), and the
 * `device_code` grant at `/token` with every polling answer. The user's decision is recorded
 * straight through the repository here (the `/device` page is test/pages/device-page.test.ts);
 * the service's clock can be moved forward (`later`) instead of sleeping.
 */
let svc: TestService;
let offsetMs = 0;
let publicId: string;
let confidential: { id: string; secret: string };
let noDeviceGrant: string;

const serviceNow = () => new Date(Date.now() + offsetMs);
const later = (seconds: number) => {
  offsetMs += seconds * 1000;
};

beforeAll(async () => {
  svc = await startTestService({ now: serviceNow });
  const call = managementCaller(svc.url, await svc.managementToken());
  const make = async (body: Record<string, unknown>) => {
    const res = await call('POST', '/clients', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; client_secret: string };
  };
  publicId = (await make({ client_name: 'tv', is_public: true, client_metadata: { grant_types: ['device_code', 'refresh_token'] } })).id;
  const c = await make({ client_name: 'kiosk', client_metadata: { grant_types: ['device_code'] } });
  confidential = { id: c.id, secret: c.client_secret };
  noDeviceGrant = (await make({ client_name: 'spa', is_public: true })).id;
});
afterAll(async () => svc?.stop());

const form = (params: Record<string, string>) => new URLSearchParams(params);

async function deviceCode(params: Record<string, string>, init: { method?: string; headers?: Record<string, string> } = {}) {
  const get = init.method === 'GET';
  const res = await fetch(`${svc.url}/device_code${get ? `?${form(params)}` : ''}`, {
    method: init.method ?? 'POST',
    headers: { ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), ...init.headers },
    ...(get ? {} : { body: form(params) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

async function poll(device_code: string, clientId = publicId, grant_type = 'urn:ietf:params:oauth:grant-type:device_code') {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({ grant_type, device_code, client_id: clientId }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const deviceItem = (code: string) => storedItem(svc, keys.deviceCode(deviceCodeHash(code)));

/** What the `/device` page records once the user logged in and chose (test/pages/device-page.test.ts drives the real page). */
async function decide(code: string, decision: 'allow' | 'deny', userId: string, grantedScopes: string[]) {
  const ok = await devicePageDeps(svc.stack.runtime).deviceCodes.decide(deviceCodeHash(code), {
    decision,
    userId,
    authTime: Math.floor(serviceNow().getTime() / 1000),
    grantedScopes,
  });
  expect(ok).toBe(true);
}

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describe('POST /device_code (RFC 8628 §3.1, §3.2)', () => {
  it('answers the device code, a typeable user code, both verification URIs, expires_in and interval; no-store; stores only hashes', async () => {
    const res = await deviceCode({ client_id: publicId, scope: 'openid profile' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${svc.url}/device`,
      verification_uri_complete: `${svc.url}/device?user_code=${res.body.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    const item = await deviceItem(res.body.device_code);
    expect(item).toMatchObject({ client_id: publicId, status: 'pending', interval: 5, scopes: ['openid', 'profile'] });
    expect(item?.user_code).toBe(res.body.user_code.replace('-', ''));
    expect(await storedItem(svc, keys.deviceUserCode(item!.user_code as string))).toMatchObject({
      device_hash: deviceCodeHash(res.body.device_code),
    });
    // The device code itself is nowhere in the table.
    const all = await svc.stack.runtime.db.send(new ScanCommand({ TableName: svc.stack.tableName }));
    expect(JSON.stringify(all.Items)).not.toContain(res.body.device_code);
  });

  it('GET is accepted with the parameters in the query (spec 4.2); fields= keeps the named members', async () => {
    const res = await deviceCode({ client_id: publicId }, { method: 'GET' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user_code).toMatch(USER_CODE);
    const some = await deviceCode({ client_id: publicId, fields: 'user_code,interval' }, { method: 'GET' });
    expect(Object.keys(some.body).sort()).toEqual(['device_code', 'interval', 'user_code']);
    const bad = await deviceCode({ client_id: publicId, fields: 'secret' });
    expect(bad.status).toBe(400);
  });

  it('a client without device_code in its grant_types: 400 unauthorized_client, nothing stored', async () => {
    const res = await deviceCode({ client_id: noDeviceGrant });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'unauthorized_client', error: 'unauthorized_client' });
  });

  it('a confidential client authenticates (Basic or client_secret_post); client_id alone is 401 invalid_client', async () => {
    expect((await deviceCode({ client_id: confidential.id })).status).toBe(401);
    const basic = await deviceCode({}, { headers: { authorization: basicAuth(confidential.id, confidential.secret) } });
    expect(basic.status, JSON.stringify(basic.body)).toBe(200);
    const post = await deviceCode({ client_id: confidential.id, client_secret: confidential.secret });
    expect(post.status).toBe(200);
    const wrong = await deviceCode({ client_id: confidential.id, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
  });

  it('refuses an unknown client, an unknown audience, a bad scope token and repeated parameters', async () => {
    expect((await deviceCode({ client_id: '0192c2e1-0000-7000-8000-000000000000' })).status).toBe(401);
    const target = await deviceCode({ client_id: publicId, audience: 'https://nowhere.example/' });
    expect(target.status).toBe(400);
    expect(target.body.error).toBe('invalid_target');
    const scope = await deviceCode({ client_id: publicId, scope: 'a"b' });
    expect(scope.body.error).toBe('invalid_scope');
    const res = await fetch(`${svc.url}/device_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `client_id=${publicId}&client_id=${publicId}`,
    });
    expect(res.status).toBe(400);
  });

  it('the management API audience: invalid_target for a client not authorized on it; accepted once it is (scopes from the user)', async () => {
    const call = managementCaller(svc.url, await svc.managementToken());
    const tv = await call('POST', '/clients', {
      body: { client_name: 'admin tv', is_public: true, client_metadata: { grant_types: ['device_code'] } },
    });
    const unlinked = await deviceCode({ client_id: tv.body.id, audience: svc.managementAudience, scope: 'read:users' });
    expect(unlinked.status).toBe(400);
    expect(unlinked.body).toMatchObject({ error: 'invalid_target', error_description: NOT_LINKED_MESSAGE });
    const resources = await call('GET', '/resources?limit=100');
    const api = resources.body.items.find((r: any) => r.resource_metadata.is_system).id;
    expect((await call('POST', `/clients/${tv.body.id}/resources`, { body: { resources: [api] } })).status).toBe(204);
    const res = await deviceCode({ client_id: tv.body.id, audience: svc.managementAudience, scope: 'read:users' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await deviceItem(res.body.device_code))?.audience).toBe(svc.managementAudience);
  });
});

describe('the device_code grant (RFC 8628 §3.4, §3.5)', () => {
  it('authorization_pending, then slow_down when polled sooner than the interval (interval + 5 s on the item), then pending again', async () => {
    const { body } = await deviceCode({ client_id: publicId });
    const first = await poll(body.device_code);
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ error: 'authorization_pending', code: 'authorization_pending' });
    expect(first.headers.get('cache-control')).toBe('no-store');
    const fast = await poll(body.device_code);
    expect(fast.body.error).toBe('slow_down');
    expect((await deviceItem(body.device_code))?.interval).toBe(10);
    later(6); // more than the old interval, less than the new one
    expect((await poll(body.device_code)).body.error).toBe('slow_down');
    expect((await deviceItem(body.device_code))?.interval).toBe(15);
    later(16);
    expect((await poll(body.device_code)).body.error).toBe('authorization_pending');
    expect((await deviceItem(body.device_code))?.interval).toBe(15);
  });

  it('approved: user tokens for what the user granted (both grant_type spellings), then the code is used up', async () => {
    const user = await putUser(svc.stack.runtime, { name: 'Tess Device' });
    for (const grantType of ['device_code', 'urn:ietf:params:oauth:grant-type:device_code']) {
      const { body } = await deviceCode({ client_id: publicId, scope: 'openid profile offline_access' });
      await decide(body.device_code, 'allow', user.id, ['openid', 'profile', 'offline_access']);
      const res = await poll(body.device_code, publicId, grantType);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile offline_access' });
      expect(res.body.refresh_token).toEqual(expect.any(String));
      const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(res.body.access_token, jwks, { issuer: svc.url, currentDate: serviceNow() });
      expect(payload).toMatchObject({ sub: user.id, client_id: publicId });
      const id = await jwtVerify(res.body.id_token, jwks, { issuer: svc.url, audience: publicId, currentDate: serviceNow() });
      expect(id.payload).toMatchObject({ sub: user.id, name: 'Tess Device' });
      expect((await deviceItem(body.device_code))?.status).toBe('used');
      const again = await poll(body.device_code, publicId, grantType);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
    }
  });

  it('20 parallel redemptions of one approved code: exactly one gets tokens', async () => {
    const user = await putUser(svc.stack.runtime);
    const { body } = await deviceCode({ client_id: publicId, scope: 'openid' });
    await decide(body.device_code, 'allow', user.id, ['openid']);
    const results = await Promise.all(Array.from({ length: 20 }, () => poll(body.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant')).toHaveLength(19);
  });

  it('denied: access_denied, every time', async () => {
    const user = await putUser(svc.stack.runtime);
    const { body } = await deviceCode({ client_id: publicId });
    await decide(body.device_code, 'deny', user.id, []);
    expect((await poll(body.device_code)).body.error).toBe('access_denied');
    later(6);
    expect((await poll(body.device_code)).body.error).toBe('access_denied');
  });

  it('expired after 10 minutes: expired_token, approved or not', async () => {
    const user = await putUser(svc.stack.runtime);
    const pending = await deviceCode({ client_id: publicId });
    const approved = await deviceCode({ client_id: publicId, scope: 'openid' });
    await decide(approved.body.device_code, 'allow', user.id, ['openid']);
    later(601);
    expect((await poll(pending.body.device_code)).body.error).toBe('expired_token');
    expect((await poll(approved.body.device_code)).body.error).toBe('expired_token');
  });

  it("another client's device code is invalid_grant and leaves it for its own client", async () => {
    const user = await putUser(svc.stack.runtime);
    const { body } = await deviceCode({ client_id: publicId, scope: 'openid' });
    await decide(body.device_code, 'allow', user.id, ['openid']);
    const other = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(confidential.id, confidential.secret) },
      body: form({ grant_type: 'device_code', device_code: body.device_code }),
    });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await poll(body.device_code)).status).toBe(200);
  });

  it('an unknown or malformed device code is invalid_grant; a missing one is invalid_request naming it', async () => {
    expect((await poll('A'.repeat(43))).body.error).toBe('invalid_grant');
    expect((await poll('<script>')).body.error).toBe('invalid_grant');
    const missing = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'device_code', client_id: publicId }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain('body.device_code');
  });

  it('a user blocked after approving gets nothing', async () => {
    const user = await putUser(svc.stack.runtime, { blocked: true });
    const { body } = await deviceCode({ client_id: publicId, scope: 'openid' });
    await decide(body.device_code, 'allow', user.id, ['openid']);
    expect((await poll(body.device_code)).body.error).toBe('invalid_grant');
  });

  it('openid-client finds the endpoint by discovery, initiates, and polls until the approval', async () => {
    const config = await client.discovery(new URL(svc.url), publicId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${svc.url}/device_code`);
    expect(config.serverMetadata().grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:device_code');
    const user = await putUser(svc.stack.runtime);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    await decide(started.device_code, 'allow', user.id, ['openid']);
    const tokens = await client.pollDeviceAuthorizationGrant(config, started);
    expect(tokens.claims()?.sub).toBe(user.id);
  }, 20_000);
});
