import { createRemoteJWKSet, type JWK, jwtVerify, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

let svc: TestService;
let config: client.Configuration;

beforeAll(async () => {
  svc = await startTestService();
  config = await client.discovery(new URL(svc.url), svc.clientId, undefined, client.ClientSecretBasic(svc.clientSecret), {
    execute: [client.allowInsecureRequests],
  });
});
afterAll(async () => svc?.stop());

const form = (params: Record<string, string>) => new URLSearchParams(params);
const post = (path: string, body: URLSearchParams | string, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': typeof body === 'string' ? 'application/json' : 'application/x-www-form-urlencoded', ...headers },
    body,
  });

describe('client_credentials end to end with openid-client (RFC 6749 §4.4)', () => {
  it('obtains a token through discovery, verifies it against our JWKS, introspects, revokes it', async () => {
    const tokens = await client.clientCredentialsGrant(config, { audience: svc.managementAudience, scope: 'read:clients read:resources' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);

    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: svc.url,
      audience: svc.managementAudience,
      typ: 'at+jwt',
      algorithms: ['ES256'],
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload).toMatchObject({ sub: svc.clientId, client_id: svc.clientId, scope: 'read:clients read:resources' });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.jti).toEqual(expect.any(String));

    // RFC 7662 through openid-client
    const introspection = await client.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({
      active: true,
      client_id: svc.clientId,
      sub: svc.clientId,
      scope: 'read:clients read:resources',
      exp: payload.exp,
      iss: svc.url,
    });

    // spec 2.11 /tokeninfo, Basic caller
    const info = await post('/tokeninfo', form({ token: tokens.access_token }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(info.status).toBe(200);
    expect(info.headers.get('cache-control')).toBe('no-store');
    expect((await info.json()) as any).toEqual({
      active: true,
      token_type: 'Bearer',
      client_id: svc.clientId,
      scope: 'read:clients read:resources',
      exp: new Date(payload.exp! * 1000).toISOString(),
      iat: new Date(payload.iat! * 1000).toISOString(),
      nbf: new Date(payload.nbf! * 1000).toISOString(),
      subject: svc.clientId,
      jti: payload.jti,
    });

    // RFC 7009 through openid-client, then inactive everywhere
    await client.tokenRevocation(config, tokens.access_token);
    expect(await client.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
    const after = await post('/tokeninfo', form({ token: tokens.access_token }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect((await after.json()) as any).toEqual({ active: false });
    // management routes refuse it too (health checks signatures only: docs/tokens.md)
    const list = await fetch(`${svc.url}/identity/v1/clients`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(list.status).toBe(401);
  });

  it('the token response is spec 2.10 with Cache-Control: no-store (RFC 6749 §5.1)', async () => {
    const res = await post('/token', form({ grant_type: 'client_credentials', audience: svc.managementAudience, scope: 'read:clients' }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(Object.keys((await res.json()) as any).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  });

  it('client_secret_post and the RFC 8707 resource parameter work too; no scope asked = every granted scope', async () => {
    const res = await post(
      '/token',
      form({
        grant_type: 'client_credentials',
        resource: svc.managementAudience,
        client_id: svc.clientId,
        client_secret: svc.clientSecret,
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.scope.split(' ')).toEqual(expect.arrayContaining(['read:clients', 'create:clients', 'update:client_keys']));
  });

  it('/tokeninfo accepts a Bearer caller (spec 4.2)', async () => {
    const caller = await svc.managementToken('read:clients');
    const subject = await svc.managementToken('read:resources');
    const res = await post('/tokeninfo', form({ token: subject }), { authorization: `Bearer ${caller}` });
    expect((await res.json()) as any).toMatchObject({ active: true, scope: 'read:resources' });
  });

  it('/revoke accepts the spec JSON body {client_id, token} and answers 200 for unknown tokens (RFC 7009 §2.2)', async () => {
    const token = await svc.managementToken('read:clients');
    const auth = { authorization: basicAuth(svc.clientId, svc.clientSecret) };
    const res = await post('/revoke', JSON.stringify({ client_id: svc.clientId, token }), auth);
    expect(res.status).toBe(200);
    const info = await post('/tokeninfo', form({ token }), auth);
    expect((await info.json()) as any).toEqual({ active: false });
    const unknown = await post('/revoke', JSON.stringify({ client_id: svc.clientId, token: 'not-a-token' }), auth);
    expect(unknown.status).toBe(200);
  });
});

describe('token endpoint refusals (RFC 6749 §5.2), each with status and body', () => {
  const cc = (extra: Record<string, string> = {}) => form({ grant_type: 'client_credentials', audience: svc.managementAudience, ...extra });

  it('wrong secret → 401 invalid_client with WWW-Authenticate', async () => {
    const res = await post('/token', cc(), { authorization: basicAuth(svc.clientId, 'wrong') });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await res.json()) as any).toEqual({
      code: 'invalid_client',
      message: expect.any(String),
      error: 'invalid_client',
      error_description: expect.any(String),
    });
  });

  it('unknown client → 401 invalid_client', async () => {
    const res = await post('/token', cc(), { authorization: basicAuth('00000000-0000-7000-8000-000000000000', 'x') });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBe('invalid_client');
  });

  it('scope not granted → 400 invalid_scope', async () => {
    const res = await post('/token', cc({ scope: 'read:clients launch:rockets' }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(400);
    // docs/contract.md §8: the field is named, the scope sent is not echoed.
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      error: 'invalid_scope',
      message: 'body.scope: names a scope not granted to this client on this resource.',
    });
    expect(JSON.stringify(body)).not.toContain('launch:rockets');
  });

  it('unknown audience → 400 invalid_target (RFC 8707 §2)', async () => {
    const res = await post('/token', cc({ audience: 'https://nowhere.example/api' }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(400);
    expect((await res.json()) as any).toMatchObject({ code: 'invalid_target', error: 'invalid_target' });
  });

  it('an unsupported grant type → 400 unsupported_grant_type; implicit is never a /token grant', async () => {
    for (const grant_type of ['implicit', 'magic']) {
      const res = await post('/token', form({ grant_type }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBe('unsupported_grant_type');
    }
  });

  it("a grant not in the client's grant_types → 400 unauthorized_client", async () => {
    const res = await post('/token', form({ grant_type: 'password', username: 'u', password: 'p' }), {
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('unauthorized_client');
  });

  it('a repeated parameter → 400 invalid_request (RFC 6749 §3.2)', async () => {
    const res = await post('/token', 'grant_type=client_credentials&scope=a&scope=b'.replace(/^/, ''), {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('invalid_request');
  });

  it('a repeat past the 1,000 pairs the form parser reads is refused too, never dropped unseen', async () => {
    const filler = Array.from({ length: 1000 }, (_, i) => `x${i}=1`).join('&');
    for (const body of [`grant_type=client_credentials&${filler}&scope=a&scope=b`, `grant_type=client_credentials&${filler}`]) {
      const res = await post('/token', body, {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(svc.clientId, svc.clientSecret),
      });
      expect(res.status).toBe(400);
      const json = (await res.json()) as any;
      expect(json.error).toBe('invalid_request');
      expect(json.error_description).toBe('body: must have at most 1000 parameters.');
    }
  });

  it('a repeated unknown parameter names it', async () => {
    const res = await post('/token', 'grant_type=client_credentials&foo=1&foo=2', {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(svc.clientId, svc.clientSecret),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', error_description: 'body.foo: must not be repeated.' });
  });
});

describe('bearer verification on management routes (RFC 8725, RFC 9068 §4)', () => {
  const health = (token: string) => fetch(`${svc.url}/company/v1/health`, { headers: { authorization: `Bearer ${token}` } });

  async function ourPublicJwk(): Promise<JWK> {
    const { keys } = (await (await fetch(`${svc.url}/.well-known/jwks.json`)).json()) as any as { keys: JWK[] };
    return keys.find((k) => k.alg === 'ES256')!;
  }

  it('alg none → 401', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ iss: svc.url, sub: svc.clientId, aud: svc.managementAudience, exp: 9999999999 })).toString(
      'base64url',
    );
    expect((await health(`${header}.${payload}.`)).status).toBe(401);
  });

  it('an HS256 token signed with our public key → 401', async () => {
    const jwk = await ourPublicJwk();
    const secret = new TextEncoder().encode(JSON.stringify(jwk));
    const forged = await new SignJWT({ client_id: svc.clientId, scope: 'read:clients', jti: 'x' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: jwk.kid! })
      .setIssuer(svc.url)
      .setSubject(svc.clientId)
      .setAudience(svc.managementAudience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    expect((await health(forged)).status).toBe(401);
  });

  it('a tampered signature or payload → 401', async () => {
    const token = await svc.managementToken();
    const [h, p, s] = token.split('.');
    const flipped = `${h}.${p}.${s!.slice(0, -4)}${s!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await health(flipped)).status).toBe(401);
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const swapped = `${h}.${Buffer.from(JSON.stringify({ ...claims, scope: 'everything' })).toString('base64url')}.${s}`;
    expect((await health(swapped)).status).toBe(401);
  });

  it('an expired token → 401', async () => {
    const runtime = svc.stack.runtime;
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = await runtime.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: svc.url,
        sub: svc.clientId,
        aud: svc.managementAudience,
        client_id: svc.clientId,
        scope: 'read:clients',
        iat: past,
        nbf: past,
        exp: past + 3600,
        jti: 'expired-1',
      },
    );
    expect((await health(expired)).status).toBe(401);
    // the same token with a future expiry is accepted: the signature and claims are otherwise right
    const fresh = await runtime.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: svc.url,
        sub: svc.clientId,
        aud: svc.managementAudience,
        client_id: svc.clientId,
        scope: 'read:clients',
        iat: past,
        nbf: past,
        exp: past + 9000,
        jti: 'fresh-1',
      },
    );
    expect((await health(fresh)).status).toBe(200);
  });

  it('a token of ours for another audience → 401 on the management API', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = await svc.stack.runtime.keys.signJwt(
      'ES256',
      { typ: 'at+jwt' },
      {
        iss: svc.url,
        sub: svc.clientId,
        aud: 'https://api.example.com/orders',
        client_id: svc.clientId,
        scope: 'read:clients',
        iat: now,
        nbf: now,
        exp: now + 300,
        jti: 'other-aud',
      },
    );
    const res = await fetch(`${svc.url}/identity/v1/clients`, { headers: { authorization: `Bearer ${other}` } });
    expect(res.status).toBe(401);
    expect((await res.json()) as any).toEqual({ code: 'unauthorized', message: expect.any(String) });
  });

  it("a management call without the route's scope → 403 insufficient_scope", async () => {
    const token = await svc.managementToken('read:resources');
    const res = await fetch(`${svc.url}/identity/v1/clients`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect((await res.json()) as any).toEqual({ code: 'insufficient_scope', message: 'The access token lacks the scope read:clients.' });
  });

  it('a token signed by a key that is not ours → 401', async () => {
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ client_id: svc.clientId, scope: 'read:clients', jti: 'f' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: (await ourPublicJwk()).kid! })
      .setIssuer(svc.url)
      .setSubject(svc.clientId)
      .setAudience(svc.managementAudience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await health(foreign)).status).toBe(401);
  });
});

describe('/tokeninfo fields (spec 4.1, 4.2)', () => {
  it('keeps only the named members of an active answer, and refuses an unknown name with 400', async () => {
    const token = await svc.managementToken('read:clients');
    const auth = { authorization: basicAuth(svc.clientId, svc.clientSecret) };
    const res = await post('/tokeninfo?fields=client_id,scope', form({ token }), auth);
    expect(res.status).toBe(200);
    expect((await res.json()) as any).toEqual({ active: true, client_id: svc.clientId, scope: 'read:clients' });
    const bad = await post('/tokeninfo?fields=client_id,password', form({ token }), auth);
    expect(bad.status).toBe(400);
    expect((await bad.json()) as any).toMatchObject({ code: 'invalid_request', message: 'query.fields: names an unknown field.' });
    const inactive = await post('/tokeninfo?fields=client_id', form({ token: 'x.y.z' }), auth);
    expect((await inactive.json()) as any).toEqual({ active: false });
  });
});
