import { randomUUID, type webcrypto } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, exportJWK, exportSPKI, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ASSERTION_ALGS, JWT_BEARER_ASSERTION_TYPE } from '#shared/oauth/client-auth/client-assertion.ts';
import { secretHash } from '#shared/store/core/secret-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { type ClientsFixture, clientsFixture } from '../support/management/clients-fixture.ts';
import { basicAuth } from '../support/service/local-service.ts';

/**
 * private_key_jwt end to end (RFC 7523 §2.2, §3; OIDC Core §9; docs/client-authentication.md
 * "private_key_jwt"): clients registered with an inline `jwks`, real key pairs, openid-client and
 * oauth4webapi as relying parties, tokens verified against our JWKS, and each attack a reviewer
 * would try kept as a test. Keys served from a `jwks_uri`: private-key-jwt-jwks-uri.test.ts.
 */
let fx: ClientsFixture;
let api: Awaited<ReturnType<ClientsFixture['createResource']>>;
let issuer: string;

const form = (params: Record<string, string>) => new URLSearchParams(params);
async function post(path: string, body: URLSearchParams, headers: Record<string, string> = {}) {
  const res = await fetch(`${fx.svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

interface KeyClient {
  id: string;
  secret: string;
  privateKey: webcrypto.CryptoKey;
  publicKey: webcrypto.CryptoKey;
  publicJwk: JWK;
  kid: string;
}

async function keyPair(alg: string = 'ES256') {
  const pair = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { ...pair, kid, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } as JWK };
}

/** A confidential client at private_key_jwt with one inline key, linked to `api` with its `read` scope. */
async function keyClient(alg = 'ES256', metadata: Record<string, unknown> = {}): Promise<KeyClient> {
  const pair = await keyPair(alg);
  const made = await fx.createClient({
    client_metadata: {
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [pair.jwk] },
      ...metadata,
    },
  });
  expect((await fx.call('POST', `/clients/${made.id}/resources`, { body: { resources: [api.id] } })).status).toBe(204);
  const grant = { permissions: [{ resource_id: api.id, scopes: [api.scope('read')] }] };
  expect((await fx.call('POST', `/clients/${made.id}/permissions`, { body: grant })).status).toBe(204);
  return {
    id: made.id,
    secret: made.client_secret,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    publicJwk: pair.jwk,
    kid: pair.kid,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An assertion as RFC 7523 §3 asks, signed with the client's key; `claims` and `header` override. */
async function assertion(c: KeyClient, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = nowSeconds();
  const payload = { iss: c.id, sub: c.id, aud: issuer, jti: randomUUID(), iat: now, exp: now + 60, ...claims };
  for (const [k, v] of Object.entries(payload)) if (v === undefined) delete (payload as Record<string, unknown>)[k];
  return new SignJWT(payload).setProtectedHeader({ alg: c.publicJwk.alg!, kid: c.kid, ...header }).sign(c.privateKey);
}

const cc = (jwt: string, extra: Record<string, string> = {}) =>
  form({
    grant_type: 'client_credentials',
    audience: api.audience,
    client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
    client_assertion: jwt,
    ...extra,
  });

/** RFC 6749 §5.2 invalid_client for an assertion: 401, one message whatever was wrong, no Basic challenge. */
function expectRefused(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({
    code: 'invalid_client',
    message: 'Client authentication failed.',
    error: 'invalid_client',
    error_description: 'Client authentication failed.',
  });
  expect(res.headers.get('www-authenticate')).toBeNull();
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** The one-time mark of an assertion's `jti` (shared/store/sessions/one-time-ids-repository.ts), or undefined. */
async function jtiMark(clientId: string, jti: string) {
  const { runtime } = fx.svc.stack;
  const key = keys.oneTimeId('client_assertion', secretHash(`${clientId}\n${jti}`));
  return (await runtime.db.send(new GetCommand({ TableName: runtime.config.tableName, Key: key }))).Item;
}
const jtiOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).jti as string;

beforeAll(async () => {
  fx = await clientsFixture();
  issuer = fx.svc.url;
  api = await fx.createResource(['read', 'write']);
});
afterAll(async () => fx?.stop());

describe('private_key_jwt with the relying parties', () => {
  it('openid-client: client_credentials and introspection, the token verified against our JWKS', async () => {
    const c = await keyClient('ES256');
    const config = await client.discovery(new URL(issuer), c.id, undefined, client.PrivateKeyJwt({ key: c.privateKey, kid: c.kid }), {
      execute: [client.allowInsecureRequests],
    });
    const tokens = await client.clientCredentialsGrant(config, { audience: api.audience, scope: 'read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), {
      issuer,
      audience: api.audience,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: c.id, client_id: c.id, scope: 'read' });

    const introspection = await client.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, client_id: c.id, sub: c.id, scope: 'read', exp: payload.exp });
  });

  it('oauth4webapi: client_credentials and revocation with an RS256 key; the revoked token is inactive', async () => {
    const c = await keyClient('RS256');
    const as = await oauth.processDiscoveryResponse(
      new URL(issuer),
      await oauth.discoveryRequest(new URL(issuer), { [oauth.allowInsecureRequests]: true }),
    );
    const rp: oauth.Client = { client_id: c.id };
    const auth = oauth.PrivateKeyJwt({ key: c.privateKey, kid: c.kid });
    const options = { [oauth.allowInsecureRequests]: true };
    const response = await oauth.clientCredentialsGrantRequest(as, rp, auth, { audience: api.audience }, options);
    const tokens = await oauth.processClientCredentialsResponse(as, rp, response);
    expect(tokens.token_type).toBe('bearer');
    expect(fx.scopesOf(tokens.access_token)).toEqual(['read']);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, rp, auth, tokens.access_token, options));
    const introspected = await post('/introspect', form({ token: tokens.access_token }), {
      authorization: basicAuth(fx.svc.clientId, fx.svc.clientSecret),
    });
    expect(introspected.status).toBe(200);
    expect(introspected.body).toEqual({ active: false });
  });

  it('EdDSA and PS256 keys authenticate too; the jti is stored until the assertion expires', async () => {
    for (const alg of ['EdDSA', 'PS256']) {
      const c = await keyClient(alg);
      const jwt = await assertion(c);
      const res = await post('/token', cc(jwt));
      expect(res.status, alg).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
      const mark = await jtiMark(c.id, jtiOf(jwt));
      const exp = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).exp as number;
      // Kept past `exp` by the clock skew, so a replay within the skew still finds it.
      expect(mark?.ttl).toBe(exp + 15);
    }
  });

  it('aud may be the endpoint URL, alone or in an array, and the body may repeat client_id', async () => {
    const c = await keyClient();
    expect((await post('/token', cc(await assertion(c, { aud: `${issuer}/token` })))).status).toBe(200);
    expect((await post('/token', cc(await assertion(c, { aud: ['https://elsewhere.example', `${issuer}/token`] })))).status).toBe(200);
    expect((await post('/token', cc(await assertion(c), { client_id: c.id }))).status).toBe(200);
  });

  it('discovery lists private_key_jwt and the assertion algorithms for /token, /introspect and /revoke (RFC 8414 §2)', async () => {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`);
    const doc = (await res.json()) as any;
    expect(res.status).toBe(200);
    for (const endpoint of ['token', 'introspection', 'revocation']) {
      expect(doc[`${endpoint}_endpoint_auth_methods_supported`]).toContain('private_key_jwt');
      expect(doc[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).toEqual([...CLIENT_ASSERTION_ALGS]);
    }
    expect((CLIENT_ASSERTION_ALGS as readonly string[]).some((a) => a === 'none' || a.startsWith('HS'))).toBe(false);
  });
});

describe('private_key_jwt at every client-authenticated endpoint', () => {
  it('/introspect, /tokeninfo, /revoke and /device_code take the assertion with their own URL as aud, not another endpoint’s', async () => {
    const c = await keyClient();
    const token = (await post('/token', cc(await assertion(c)))).body.access_token as string;
    const as = (endpoint: string) => ({ client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: endpoint });

    const introspected = await post('/introspect', form({ token, ...as(await assertion(c, { aud: `${issuer}/introspect` })) }));
    expect(introspected.status).toBe(200);
    expect(introspected.body).toMatchObject({ active: true, client_id: c.id });
    const info = await post('/tokeninfo', form({ token, ...as(await assertion(c, { aud: `${issuer}/tokeninfo` })) }));
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ active: true, client_id: c.id });
    // An assertion made for /token is no good at /introspect.
    expectRefused(await post('/introspect', form({ token, ...as(await assertion(c, { aud: `${issuer}/token` })) })));

    const revoked = await post('/revoke', form({ token, ...as(await assertion(c, { aud: `${issuer}/revoke` })) }));
    expect(revoked.status).toBe(200);
    const after = await post('/introspect', form({ token, ...as(await assertion(c)) }));
    expect(after.body).toEqual({ active: false });

    // /device_code: authenticated, then refused for the grant the client lacks (not invalid_client).
    const device = await post('/device_code', form({ ...as(await assertion(c, { aud: `${issuer}/device_code` })) }));
    expect(device.status).toBe(400);
    expect(device.body.error).toBe('unauthorized_client');
  });

  it('/par: openid-client pushes a request with private_key_jwt; an assertion for /par works, the secret does not', async () => {
    const redirect = 'https://rp.example/cb';
    const c = await keyClient('ES256', { grant_types: ['authorization_code'], urls: { redirect_uris: [redirect] } });
    const config = await client.discovery(new URL(issuer), c.id, undefined, client.PrivateKeyJwt({ key: c.privateKey, kid: c.kid }), {
      execute: [client.allowInsecureRequests],
    });
    const challenge = await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier());
    const request = {
      redirect_uri: redirect,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      response_type: 'code',
    };
    const url = await client.buildAuthorizationUrlWithPAR(config, request);
    expect(url.searchParams.get('client_id')).toBe(c.id);
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);

    const pushed = await post(
      '/par',
      form({
        ...request,
        client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
        client_assertion: await assertion(c, { aud: `${issuer}/par` }),
      }),
    );
    expect(pushed.status).toBe(201);
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const withSecret = await post('/par', form({ ...request, client_id: c.id, client_secret: c.secret }));
    expect([withSecret.status, withSecret.body.error]).toEqual([401, 'invalid_client']);
  });

  it('/users/register takes an assertion made for its URL; nothing of it is stored on the user', async () => {
    const c = await keyClient();
    const register = (jwt: string, email: string) =>
      fetch(`${issuer}/identity/v1/users/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
          client_assertion: jwt,
          email,
          password: 'correct horse battery staple 7',
        }),
      });
    const email = `${randomUUID()}@example.com`;
    const jwt = await assertion(c, { aud: `${issuer}/identity/v1/users/register` });
    const res = await register(jwt, email);
    expect(res.status).toBe(201);
    const user = (await res.json()) as any;
    expect(user).toMatchObject({ email, email_verified: false });
    expect(Object.keys(user).filter((k) => k.startsWith('client_'))).toEqual([]);
    const stored = await fx.call('GET', `/users/${user.id}`);
    expect(stored.status).toBe(200);
    expect(Object.keys(stored.body).filter((k) => k.startsWith('client_'))).toEqual([]);
    // Replayed, or made for /token: refused (the management API's 401 shape).
    const replayed = await register(jwt, `${randomUUID()}@example.com`);
    expect(replayed.status).toBe(401);
    expect((await replayed.json()) as any).toMatchObject({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(replayed.headers.get('www-authenticate')).toBeNull();
    const forToken = await register(await assertion(c, { aud: `${issuer}/token` }), `${randomUUID()}@example.com`);
    expect(forToken.status).toBe(401);
  });

  it('a client at private_key_jwt presenting its secret is refused everywhere, Basic or post', async () => {
    const c = await keyClient();
    expect(c.secret).toEqual(expect.any(String));
    const basic = { authorization: basicAuth(c.id, c.secret) };
    for (const path of ['/token', '/introspect', '/revoke', '/device_code']) {
      const body = form({ grant_type: 'client_credentials', audience: api.audience, token: 'x' });
      const viaBasic = await post(path, body, basic);
      expect([path, viaBasic.status, viaBasic.body.error]).toEqual([path, 401, 'invalid_client']);
      expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
      const viaPost = await post(
        path,
        form({ grant_type: 'client_credentials', audience: api.audience, token: 'x', client_id: c.id, client_secret: c.secret }),
      );
      expect([path, viaPost.status, viaPost.body.error]).toEqual([path, 401, 'invalid_client']);
    }
    const register = await fetch(`${issuer}/identity/v1/users/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: c.id,
        client_secret: c.secret,
        email: `${randomUUID()}@example.com`,
        password: 'correct horse battery staple 7',
      }),
    });
    expect(register.status).toBe(401);
    expect(((await register.json()) as any).error).toBe('invalid_client');
  });

  it('a client at client_secret_basic presenting an assertion, or its secret by post, is refused; Basic works', async () => {
    const c = await keyClient('ES256', { token_endpoint_auth_method: 'client_secret_basic' });
    const jwt = await assertion(c);
    expectRefused(await post('/token', cc(jwt)));
    // Refused before any check of the assertion: its jti is not spent.
    expect(await jtiMark(c.id, jtiOf(jwt))).toBeUndefined();
    const viaPost = await post(
      '/token',
      form({ grant_type: 'client_credentials', audience: api.audience, client_id: c.id, client_secret: c.secret }),
    );
    expect([viaPost.status, viaPost.body.error]).toEqual([401, 'invalid_client']);
    expect((await fx.token(c.id, c.secret, api.audience)).status).toBe(200);
  });
});

describe('attacks on private_key_jwt, each refused', () => {
  it('a replayed assertion: the second use is 401 and the first one stands', async () => {
    const c = await keyClient();
    const jwt = await assertion(c);
    expect((await post('/token', cc(jwt))).status).toBe(200);
    expectRefused(await post('/token', cc(jwt)));
    expect(await jtiMark(c.id, jtiOf(jwt))).toMatchObject({ ttl: expect.any(Number) });
  });

  it('two concurrent requests with one assertion: exactly one token', async () => {
    const c = await keyClient();
    const jwt = await assertion(c);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('/token', cc(jwt))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
    for (const a of answers.filter((x) => x.status === 401)) expectRefused(a);
  });

  it('alg none, and HS256 keyed with the public key’s bytes (the classic confusion)', async () => {
    const c = await keyClient();
    const now = nowSeconds();
    const claims = { iss: c.id, sub: c.id, aud: issuer, jti: randomUUID(), iat: now, exp: now + 60 };
    const b64 = (x: unknown) => Buffer.from(JSON.stringify(x)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', kid: c.kid })}.${b64(claims)}.`;
    expectRefused(await post('/token', cc(unsigned)));
    for (const secret of [await exportSPKI(c.publicKey), JSON.stringify(c.publicJwk)]) {
      const hs = await new SignJWT({ ...claims, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256', kid: c.kid })
        .sign(new TextEncoder().encode(secret));
      expectRefused(await post('/token', cc(hs)));
    }
    // The same claims, properly signed, pass: the refusals above were the algorithm's.
    expect((await post('/token', cc(await assertion(c, { jti: randomUUID() })))).status).toBe(200);
  });

  it('an assertion signed by another client’s key, or naming another client', async () => {
    const a = await keyClient();
    const b = await keyClient();
    // b's key, claiming to be a
    expectRefused(await post('/token', cc(await assertion({ ...b, id: a.id }))));
    // a signs an assertion for b (sub = b): iss ≠ sub
    expectRefused(await post('/token', cc(await assertion(a, { sub: b.id }))));
    // a's own assertion sent with client_id b
    expectRefused(await post('/token', cc(await assertion(a), { client_id: b.id })));
    // a's assertion claiming iss b
    expectRefused(await post('/token', cc(await assertion(a, { iss: b.id }))));
  });

  it('wrong aud, expired, exp too far ahead, nbf or iat in the future, no jti, no exp', async () => {
    const c = await keyClient();
    const now = nowSeconds();
    const bad: Record<string, Record<string, unknown>> = {
      'another audience': { aud: 'https://elsewhere.example' },
      'the management API as audience': { aud: fx.svc.managementAudience },
      'another endpoint': { aud: `${issuer}/introspect` },
      expired: { iat: now - 120, exp: now - 30 },
      'valid for longer than 5 minutes': { exp: now + 301 + 15 },
      'not yet valid': { nbf: now + 120 },
      'issued in the future': { iat: now + 120, exp: now + 180 },
      'no jti': { jti: undefined },
      'empty jti': { jti: '' },
      'no exp': { exp: undefined },
    };
    for (const [what, claims] of Object.entries(bad)) {
      const res = await post('/token', cc(await assertion(c, claims)));
      expect([what, res.status]).toEqual([what, 401]);
      expectRefused(res);
    }
    // Within the bounds at their edges: 5 minutes ahead, and a clock 10 s behind ours.
    expect((await post('/token', cc(await assertion(c, { exp: now + 300 })))).status).toBe(200);
    expect((await post('/token', cc(await assertion(c, { iat: now + 10, nbf: now + 10 })))).status).toBe(200);
  });

  it('a tampered payload, an unknown kid, garbage: 401; malformed requests: 400 naming the field', async () => {
    const c = await keyClient();
    const [h, p, s] = (await assertion(c)).split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), exp: nowSeconds() + 200 })).toString('base64url')}.${s}`;
    expectRefused(await post('/token', cc(tampered)));
    expectRefused(await post('/token', cc(await assertion(c, {}, { kid: 'unknown' }))));
    expectRefused(await post('/token', cc('not.a.jwt')));
    expectRefused(await post('/token', cc('garbage')));

    const jwt = await assertion(c);
    const malformed: [string, URLSearchParams, Record<string, string>, string][] = [
      ['assertion with Basic', cc(jwt), { authorization: basicAuth(c.id, c.secret) }, 'Use one client authentication method'],
      ['assertion with client_secret', cc(jwt, { client_secret: c.secret }), {}, 'Use one client authentication method'],
      [
        'another assertion type',
        cc(jwt, { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' }),
        {},
        'body.client_assertion_type',
      ],
      [
        'a type without assertion',
        form({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION_TYPE }),
        {},
        'body.client_assertion',
      ],
      ['an assertion without type', form({ grant_type: 'client_credentials', client_assertion: jwt }), {}, 'body.client_assertion_type'],
      ['an assertion over 8 KB', cc(`${jwt}${'A'.repeat(8192)}`), {}, 'body.client_assertion'],
    ];
    for (const [what, body, headers, names] of malformed) {
      const res = await post('/token', body, headers);
      expect([what, res.status, res.body.error]).toEqual([what, 400, 'invalid_request']);
      expect(res.body.error_description).toContain(names);
    }
    // None of them spent the assertion.
    expect((await post('/token', cc(jwt))).status).toBe(200);
  });

  it('keys the client registered that cannot be used (broken, wrong type, symmetric-looking): 401, never 500', async () => {
    const good = await keyPair();
    for (const broken of [
      { kty: 'EC' },
      { kty: 'RSA', n: 'AQAB', e: 'x' },
      { kty: 'OKP', crv: 'X25519', x: good.jwk.x },
      { kty: 'oct-ish' },
    ]) {
      const made = await fx.createClient({
        client_metadata: {
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [{ ...broken, kid: good.kid }] },
        },
      });
      const c: KeyClient = {
        id: made.id,
        secret: made.client_secret,
        privateKey: good.privateKey,
        publicKey: good.publicKey,
        publicJwk: good.jwk,
        kid: good.kid,
      };
      const res = await post('/token', cc(await assertion(c)));
      expect([JSON.stringify(broken), res.status]).toEqual([JSON.stringify(broken), 401]);
      expectRefused(res);
    }
  });

  it('a public client or an unknown client sending an assertion: 401', async () => {
    const c = await keyClient();
    const jwt = await assertion(c);
    const pub = await fx.createClient({ is_public: true, client_metadata: { grant_types: ['authorization_code'] } });
    // Public clients authenticate with none only (RFC 6749 §2.1): its key would not count, whatever it signed.
    expectRefused(await post('/token', cc(await assertion({ ...c, id: pub.id }))));
    // Unknown client: the same answer.
    expectRefused(await post('/token', cc(await assertion({ ...c, id: '019b0000-0000-7000-8000-00000000dead' }))));
    expect((await post('/token', cc(jwt))).status).toBe(200);
  });
});
