import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { putFamily, userToken } from '../support/oauth/user-tokens.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser, updateUser } from '../support/store/user-items.ts';

/**
 * Over HTTP against the local service: GET/POST /userinfo (OIDC
 * Core §5.3, spec 4.2 Get user info, docs/contract.md §7.1), and when a user's token stops counting there,
 * at /tokeninfo, /introspect and on the management API. User tokens are signed with the stage's
 * keys as the user-token core mints them (test/support/oauth/user-tokens.ts). The service's clock is
 * the test's, so the 1 s record caches are passed by moving it (`passCaches`).
 */
let svc: TestService;
let config: client.Configuration;
let call: ReturnType<typeof managementCaller>;
let clock = Date.now();
const passCaches = () => {
  clock += 1_100; // RECORD_CACHE_TTL_SECONDS (1 s): the staleness bound of user and family reads
};
const runtime = () => svc.stack.runtime;

const ada: Partial<UserRecord> = {
  email: 'ada@example.com',
  email_verified: true,
  username: 'ada',
  phone_number: '+15551234567',
  phone_verified: true,
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  birthdate: '1815-12-10',
  locale: 'en-GB',
  address: { country: 'UK', locality: 'London' },
  password_hash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
};

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(clock) });
  config = await client.discovery(new URL(svc.url), svc.clientId, undefined, client.ClientSecretBasic(svc.clientSecret), {
    execute: [client.allowInsecureRequests],
  });
  call = managementCaller(svc.url, await svc.managementToken());
});
afterAll(async () => svc?.stop());

const token = (user: Pick<UserRecord, 'id' | 'tenant_id'>, scope: string, o: Partial<Parameters<typeof userToken>[2]> = {}) =>
  userToken(runtime(), user, { clientId: svc.clientId, scope, ...o });

async function userinfo(
  accessToken: string | undefined,
  init: { method?: string; body?: string; contentType?: string; query?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (accessToken !== undefined) headers.authorization = `Bearer ${accessToken}`;
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(`${svc.url}/userinfo${init.query ?? ''}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const introspection = async (path: '/tokeninfo' | '/introspect', t: string) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: t }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

/** RFC 6750 §3.1: 401, `invalid_token` in the body and in the Bearer challenge, never cached. */
function expectInvalidToken(r: Awaited<ReturnType<typeof userinfo>>) {
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body).toMatchObject({ code: 'invalid_token', error: 'invalid_token', message: expect.any(String) });
  expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="identity", error="invalid_token"/);
  expect(r.headers.get('cache-control')).toBe('no-store');
}

/** RFC 6750 §3.1: no bearer credential at all: 401, and the challenge carries no error code. */
function expectNoCredential(r: Awaited<ReturnType<typeof userinfo>>) {
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body).toMatchObject({ code: 'invalid_token', message: 'Missing bearer token.' });
  expect(r.headers.get('www-authenticate')).toBe('Bearer realm="identity"');
  expect(r.headers.get('cache-control')).toBe('no-store');
}

describe('/userinfo with openid-client (OIDC Core §5.3)', () => {
  it('fetchUserInfo returns sub and the claims of the granted scopes, both spellings of spec 2.12', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid profile email address phone');
    const claims = await client.fetchUserInfo(config, t, user.id);
    expect(claims).toEqual({
      sub: user.id,
      name: 'Ada Lovelace',
      given_name: 'Ada',
      family_name: 'Lovelace',
      preferred_username: 'ada',
      birthdate: '1815-12-10',
      birthday: '1815-12-10',
      locale: 'en-GB',
      updated_at: user.updated_at,
      email: 'ada@example.com',
      email_verified: true,
      address: { country: 'UK', locality: 'London' },
      phone_number: '+15551234567',
      phone_number_verified: true,
      phone: '+15551234567',
      phone_verified: true,
    });
    // docs/contract.md §7.6: an ISO timestamp, as spec 2.12 types updated_at.
    expect(claims.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('openid-client refuses an answer for another subject: ours is the token’s user', async () => {
    const user = await putUser(runtime(), ada);
    await expect(client.fetchUserInfo(config, await token(user, 'openid'), randomUUID())).rejects.toThrow(
      /unexpected JSON attribute value/,
    );
  });
});

describe('/userinfo claims by scope (spec 4.2: openid alone returns less than openid with profile and email)', () => {
  it.each([
    ['openid', []],
    ['openid email', ['email', 'email_verified']],
    ['openid phone', ['phone', 'phone_number', 'phone_number_verified', 'phone_verified']],
    ['openid address', ['address']],
    ['openid profile', ['birthdate', 'birthday', 'family_name', 'given_name', 'locale', 'name', 'preferred_username', 'updated_at']],
    ['openid offline_access read:things', []],
  ])('%s releases sub plus %j', async (scope, names) => {
    const user = await putUser(runtime(), ada);
    const r = await userinfo(await token(user, scope));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['sub', ...names].sort());
    expect(r.body.sub).toBe(user.id);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('only claims that have a value: a user with an email only gets no phone or profile claims but updated_at', async () => {
    const user = await putUser(runtime(), { email: 'bare@example.com', email_verified: false });
    const r = await userinfo(await token(user, 'openid profile email phone address'));
    expect(r.body).toEqual({ sub: user.id, email: 'bare@example.com', email_verified: false, updated_at: user.updated_at });
  });

  it('never releases the password hash or other storage-only fields', async () => {
    const user = await putUser(runtime(), { ...ada, tokens_revoked_at: '2000-01-01T00:00:00.000Z' });
    const r = await userinfo(await token(user, 'openid profile email address phone'));
    for (const k of ['password_hash', 'tokens_revoked_at', 'version', 'user_metadata', 'app_metadata', 'blocked']) {
      expect(r.body).not.toHaveProperty(k);
    }
  });

  it('spec 4.2 fields keeps the named claims (sub always); an unknown name is 400 naming query.fields', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid profile email');
    expect((await userinfo(t, { query: '?fields=email,name' })).body).toEqual({ sub: user.id, email: ada.email, name: ada.name });
    const bad = await userinfo(t, { query: '?fields=email,password_hash' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^query\.fields/) });
    expect(bad.body.message).not.toContain('password_hash');
  });

  it('403 insufficient_scope without openid (OIDC Core §5.3.1), with the scope in the challenge', async () => {
    const user = await putUser(runtime(), ada);
    const r = await userinfo(await token(user, 'profile email'));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'insufficient_scope', error: 'insufficient_scope' });
    expect(r.headers.get('www-authenticate')).toBe('Bearer realm="identity", error="insufficient_scope", scope="openid"');
    expect(r.body).not.toHaveProperty('email');
  });

  it('a token for a Resource (aud = its identifier) works; one for a deleted Resource does not', async () => {
    const identifier = `https://${randomUUID()}.example.com/api`;
    const made = await call('POST', '/resources', {
      body: { resource_type: 'api', resource_name: 'r', resource_metadata: { identifier_url: identifier } },
    });
    expect(made.status).toBe(201);
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid email', { aud: identifier });
    expect((await userinfo(t)).body).toEqual({ sub: user.id, email: ada.email, email_verified: true });
    expect((await call('DELETE', `/resources/${made.body.id}`)).status).toBe(204);
    passCaches();
    expectInvalidToken(await userinfo(await token(user, 'openid email', { aud: identifier })));
  });

  it('a management-API user token with openid works (the management API is a Resource)', async () => {
    const user = await putUser(runtime(), ada);
    const r = await userinfo(await token(user, 'openid', { aud: svc.managementAudience }));
    expect(r.body).toEqual({ sub: user.id });
  });
});

describe('/userinfo: where the token may come from (RFC 6750 §2)', () => {
  it('POST with the token in the Authorization header or in the form body (§2.2)', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid email');
    const viaHeader = await userinfo(t, { method: 'POST' });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.email).toBe(ada.email);
    const viaBody = await userinfo(undefined, {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ access_token: t }).toString(),
    });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body).toEqual(viaHeader.body);
  });

  it('both at once is 400 invalid_request (§2: one method only)', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid');
    const r = await userinfo(t, {
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ access_token: t }).toString(),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^body\.access_token/) });
  });

  it('a token in a JSON body or in the query (RFC 6750 §2.3) is not accepted: 401', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid');
    expectNoCredential(
      await userinfo(undefined, { method: 'POST', contentType: 'application/json', body: JSON.stringify({ access_token: t }) }),
    );
    expectNoCredential(await userinfo(undefined, { query: `?access_token=${t}` }));
  });
});

describe('/userinfo: 401 invalid_token for a missing, bad or inactive token (RFC 6750 §3.1)', () => {
  let user: UserRecord;
  beforeAll(async () => {
    user = await putUser(runtime(), ada);
  });

  it('missing, garbage, or another scheme', async () => {
    expectNoCredential(await userinfo(undefined));
    expectInvalidToken(await userinfo('not-a-jwt'));
    expectInvalidToken(await userinfo('a.b.c'));
    const basic = await fetch(`${svc.url}/userinfo`, { headers: { authorization: basicAuth(svc.clientId, svc.clientSecret) } });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe('Bearer realm="identity"');
  });

  it('expired', async () => {
    const iat = Math.floor(clock / 1000) - 7200;
    expectInvalidToken(await userinfo(await token(user, 'openid', { iat, exp: iat + 3600 })));
  });

  it('alg none (RFC 8725 §3.1)', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(clock / 1000);
    const payload = {
      iss: svc.url,
      sub: user.id,
      aud: `${svc.url}/userinfo`,
      client_id: svc.clientId,
      scope: 'openid',
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
    };
    expectInvalidToken(await userinfo(`${enc({ alg: 'none', typ: 'at+jwt' })}.${enc(payload)}.`));
  });

  it('HS256, forged with a made-up secret or with a Resource’s own signing secret (a tenant may choose it)', async () => {
    const secret = 'userinfo-hs256-secret-0123456789abcdefghijkl';
    const identifier = `https://${randomUUID()}.example.com/hs`;
    const made = await call('POST', '/resources', {
      body: {
        resource_type: 'api',
        resource_name: 'hs',
        resource_metadata: { identifier_url: identifier, signing_algorithm: 'HS256', signing_secret: secret },
      },
    });
    expect(made.status).toBe(201);
    expect((await call('POST', `/clients/${svc.clientId}/resources`, { body: { resources: [made.body.id] } })).status).toBe(204);
    const now = Math.floor(clock / 1000);
    const forge = (key: string) =>
      new SignJWT({ client_id: svc.clientId, tenant_id: user.tenant_id, scope: 'openid email', jti: randomUUID(), sid: randomUUID() })
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(svc.url)
        .setSubject(user.id)
        .setAudience(identifier)
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(now + 600)
        .sign(new TextEncoder().encode(key));
    expectInvalidToken(await userinfo(await forge('made-up-secret-made-up-secret-made-up-secret')));
    const withResourceSecret = await forge(secret);
    expect((await introspection('/introspect', withResourceSecret)).active).toBe(true); // the Resource's own token...
    expectInvalidToken(await userinfo(withResourceSecret)); // ...but never a key to user data
  });

  it('signed by us but not an access token (typ JWT, as an ID token), or for another audience', async () => {
    expectInvalidToken(await userinfo(await token(user, 'openid', { typ: 'JWT' })));
    expectInvalidToken(await userinfo(await token(user, 'openid', { aud: 'https://not-a-resource.example.com/' })));
    expectInvalidToken(await userinfo(await token(user, 'openid', { aud: svc.clientId })));
  });

  it('a client’s own token (client_credentials: sub = client_id, no user) is 401: it names no end-user', async () => {
    const t = await svc.managementToken();
    expectInvalidToken(await userinfo(t));
  });

  it('a user id that is not stored, or of another tenant than the token says', async () => {
    expectInvalidToken(await userinfo(await token({ id: randomUUID(), tenant_id: user.tenant_id }, 'openid')));
    expectInvalidToken(await userinfo(await token(user, 'openid', { tenantId: randomUUID() })));
  });

  it('revoked by jti at /revoke (RFC 7009)', async () => {
    const t = await token(user, 'openid');
    expect((await userinfo(t)).status).toBe(200);
    const res = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: { authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t }),
    });
    expect(res.status).toBe(200);
    expectInvalidToken(await userinfo(t));
  });

  it('of a deleted client', async () => {
    const made = await call('POST', '/clients', { body: { client_name: 'gone' } });
    expect(made.status).toBe(201);
    const t = await token(user, 'openid', { clientId: made.body.id });
    expect((await userinfo(t)).status).toBe(200);
    expect((await call('DELETE', `/clients/${made.body.id}`)).status).toBe(204);
    passCaches();
    expectInvalidToken(await userinfo(t));
  });
});

describe('when a user token stops working: /userinfo 401, /tokeninfo and /introspect active:false', () => {
  async function expectDead(t: string) {
    expectInvalidToken(await userinfo(t));
    expect(await introspection('/tokeninfo', t)).toEqual({ active: false });
    expect(await introspection('/introspect', t)).toEqual({ active: false });
  }
  async function expectAlive(t: string, user: UserRecord) {
    expect((await userinfo(t)).body.sub).toBe(user.id);
    expect(await introspection('/tokeninfo', t)).toMatchObject({ active: true, subject: user.id });
  }

  it('the user is blocked (and counts again when unblocked)', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid');
    await expectAlive(t, user);
    await updateUser(runtime(), user, { blocked: true });
    passCaches();
    await expectDead(t);
    await updateUser(runtime(), user, { blocked: false });
    passCaches();
    await expectAlive(t, user);
  });

  it('the user is deleted', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, 'openid');
    await expectAlive(t, user);
    await runtime().db.send(new DeleteCommand({ TableName: runtime().config.tableName, Key: keys.user(user.id) }));
    passCaches();
    await expectDead(t);
  });

  it('tokens_revoked_at: a token issued in an earlier second or earlier in the same second dies; one of a later second lives', async () => {
    const user = await putUser(runtime(), ada);
    const revokedAt = new Date(clock);
    const second = Math.floor(revokedAt.getTime() / 1000);
    const before = await token(user, 'openid', { iat: second - 1 });
    // Minted earlier in the very second of the block or password change: it dies too.
    const sameSecond = await token(user, 'openid', { iat: second });
    const after = await token(user, 'openid', { iat: second + 1 });
    await updateUser(runtime(), user, { tokens_revoked_at: revokedAt.toISOString() });
    passCaches();
    await expectDead(before);
    await expectDead(sameSecond);
    await expectAlive(after, user);
  });

  it('its login family is revoked (a rotated refresh token came back); other logins of the user live on', async () => {
    const user = await putUser(runtime(), ada);
    const sid = randomUUID();
    const t = await token(user, 'openid', { sid });
    const otherLogin = await token(user, 'openid');
    await putFamily(runtime(), sid, false);
    passCaches();
    await expectAlive(t, user);
    await putFamily(runtime(), sid, true);
    passCaches();
    await expectDead(t);
    await expectAlive(otherLogin, user);
  });
});

describe('/tokeninfo and /introspect of a user token: username and subject (spec 2.11, RFC 7662 §2.2)', () => {
  it('username is the login name (username, else email, else phone number); subject / sub the user id', async () => {
    const cases: [Partial<UserRecord>, string][] = [
      [ada, 'ada'],
      [{ email: 'only-email@example.com', phone_number: '+15550000001' }, 'only-email@example.com'],
      [{ email: undefined, phone_number: '+15550000002' }, '+15550000002'],
    ];
    for (const [fields, name] of cases) {
      const user = await putUser(runtime(), fields);
      const t = await token(user, 'openid profile');
      expect(await introspection('/tokeninfo', t)).toMatchObject({
        active: true,
        username: name,
        subject: user.id,
        client_id: svc.clientId,
      });
      expect(await introspection('/introspect', t)).toMatchObject({ active: true, username: name, sub: user.id, client_id: svc.clientId });
    }
  });

  it('a client token is answered as before: subject = the client, no username', async () => {
    const t = await svc.managementToken();
    const info = await introspection('/tokeninfo', t);
    expect(info).toMatchObject({ active: true, subject: svc.clientId });
    expect(info).not.toHaveProperty('username');
    expect(await introspection('/introspect', t)).not.toHaveProperty('username');
  });

  it('a user token as the Bearer caller of /tokeninfo stops working with its user', async () => {
    const user = await putUser(runtime(), ada);
    const caller = await token(user, 'openid');
    const victim = await token(user, 'openid');
    const ask = () =>
      fetch(`${svc.url}/tokeninfo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${caller}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: victim }),
      });
    expect((await ask()).status).toBe(200);
    await updateUser(runtime(), user, { blocked: true });
    passCaches();
    const r = await ask();
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('the management API refuses inactive user tokens: 401 invalid_token', () => {
  it('a blocked user’s management-API token is 401 with WWW-Authenticate; unblocked, it passes authentication (403 for a scope it lacks)', async () => {
    const user = await putUser(runtime(), ada);
    const t = await token(user, '', { aud: svc.managementAudience });
    const before = await call('GET', '/clients', { token: t });
    expect(before.status).toBe(403); // authenticated; a user holds no management scope yet
    expect(before.body.code).toBe('insufficient_scope');
    await updateUser(runtime(), user, { blocked: true });
    passCaches();
    const after = await call('GET', '/clients', { token: t });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthorized');
    expect(after.headers.get('www-authenticate')).toBe('Bearer realm="identity", error="invalid_token"');
  });

  it('so are a deleted user’s and a revoked login’s', async () => {
    const user = await putUser(runtime(), ada);
    const sid = randomUUID();
    const ofLogin = await token(user, 'read:clients', { aud: svc.managementAudience, sid });
    await putFamily(runtime(), sid, true);
    passCaches();
    expect((await call('GET', '/clients', { token: ofLogin })).status).toBe(401);
    const other = await putUser(runtime(), ada);
    const t = await token(other, 'read:clients', { aud: svc.managementAudience });
    await runtime().db.send(new DeleteCommand({ TableName: runtime().config.tableName, Key: keys.user(other.id) }));
    passCaches();
    expect((await call('GET', '/clients', { token: t })).status).toBe(401);
  });
});

describe('tokens minted by the user-token core (issueUserTokens) and rotated at /token', () => {
  it('the access token reads /userinfo with openid-client, matching the ID token; a reused refresh token kills the family there', async () => {
    const made = await call('POST', '/clients', {
      body: { client_name: 'rp userinfo', client_metadata: { grant_types: ['refresh_token', 'client_credentials'] } },
    });
    expect(made.status).toBe(201);
    const rpConfig = await client.discovery(new URL(svc.url), made.body.id, undefined, client.ClientSecretBasic(made.body.client_secret), {
      execute: [client.allowInsecureRequests],
    });
    const deps = oauthDeps(runtime());
    const user = await putUser(runtime(), ada);
    const tokens = await issueUserTokens(
      {
        client: (await deps.findClient(made.body.id))!,
        user,
        request: { scope: 'openid profile email offline_access' },
        authTime: Math.floor(clock / 1000),
        authorizedAt: new Date(clock).toISOString(),
      },
      deps,
    );
    const idClaims = decodeJwt(tokens.id_token!);
    const claims = await client.fetchUserInfo(rpConfig, tokens.access_token, idClaims.sub!);
    expect(claims).toMatchObject({ sub: user.id, email: ada.email, name: ada.name, birthday: ada.birthdate });
    for (const k of ['email', 'name', 'preferred_username']) expect(claims[k], k).toEqual(idClaims[k]);
    // The same instant, typed as each place says: ISO here (docs/contract.md §7.6), a NumericDate in the ID token (OIDC Core §5.1).
    expect(typeof claims.updated_at).toBe('string');
    expect(idClaims.updated_at).toBe(Math.floor(Date.parse(String(claims.updated_at)) / 1000));

    const rotated = await client.refreshTokenGrant(rpConfig, tokens.refresh_token!);
    expect((await client.fetchUserInfo(rpConfig, rotated.access_token, user.id)).sub).toBe(user.id);
    // docs/contract.md §7.1: presenting the rotated token again revokes its whole family...
    await expect(client.refreshTokenGrant(rpConfig, tokens.refresh_token!)).rejects.toThrow();
    passCaches();
    // ...and the access tokens issued from it stop working at /userinfo.
    expectInvalidToken(await userinfo(tokens.access_token));
    expectInvalidToken(await userinfo(rotated.access_token));
  });
});
