import { createHash, createHmac, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { secretHash } from '#shared/store/core/secret-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { seedSession } from '../support/browser/seed-session.ts';
import { authorizeThrough, type FlowClient, flowClient, pkce, REDIRECT } from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * DPoP (RFC 9449) end to end over HTTP: openid-client and oauth4webapi as the clients (both retry
 * `use_dpop_nonce` themselves), tokens verified with jose against our JWKS, proofs of our own making
 * for the attacks (docs/client-authentication.md "Sender-constrained tokens (DPoP)"). The service's
 * clock can be moved (`offsetMs`) to make a nonce stale without waiting.
 */
let svc: TestService;
let offsetMs = 0;
let defaultAuth: string;
let ccConfig: client.Configuration;
const PASSWORD = 'amber-lantern-42-orchard';
let passwordHash: string;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + offsetMs) });
  defaultAuth = basicAuth(svc.clientId, svc.clientSecret);
  ccConfig = await client.discovery(new URL(svc.url), svc.clientId, undefined, client.ClientSecretBasic(svc.clientSecret), {
    execute: [client.allowInsecureRequests],
  });
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => svc?.stop());

const nowSeconds = () => Math.floor((Date.now() + offsetMs) / 1000);
const jwks = () => createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));

type CryptoKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
interface ProofKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}
async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { ...pair, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

/** A proof signed by `key` (unless `signer` is given), with the claims and header members overridden. */
async function proof(
  key: ProofKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  signer: CryptoKey = key.privateKey,
): Promise<string> {
  return new SignJWT({ jti: randomUUID(), iat: nowSeconds(), htm: 'POST', htu: `${svc.url}/token`, ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...header })
    .sign(signer);
}

/** POST /token client_credentials for the management API as the Default Client, with `dpop` as the DPoP header. */
async function ccToken(dpop: string | undefined, authorization = defaultAuth) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization,
      ...(dpop !== undefined ? { dpop } : {}),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', audience: svc.managementAudience }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** The current nonce, as a first proof without one is answered. */
async function serverNonce(): Promise<string> {
  const res = await ccToken(await proof(await proofKey(), {}));
  expect(res.status).toBe(400);
  return res.headers.get('dpop-nonce')!;
}

const jtiItem = (jkt: string, jti: string) => storedItem(svc, keys.oneTimeId('dpop_proof', secretHash(`${jkt}\n${jti}`)));
const INVALID_PROOF = { error: 'invalid_dpop_proof', code: 'invalid_dpop_proof' };

describe('DPoP at /token (RFC 9449 §5)', () => {
  it('openid-client: client_credentials with a DPoP handle gets a DPoP token bound by cnf.jkt (jose verifies it)', async () => {
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const dpop = client.getDPoPHandle(ccConfig, keyPair);
    const tokens = await client.clientCredentialsGrant(ccConfig, { audience: svc.managementAudience }, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks(), {
      issuer: svc.url,
      audience: svc.managementAudience,
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).toMatch(/^(ES256|RS256)$/);
    expect(payload).toMatchObject({ client_id: svc.clientId, sub: svc.clientId, cnf: { jkt } });
  });

  it('oauth4webapi: the same with DPoP(client, keyPair), retrying use_dpop_nonce as the library says', async () => {
    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
    expect(as.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA']));
    const c: oauth.Client = { client_id: svc.clientId };
    const keyPair = await oauth.generateKeyPair('ES256');
    const DPoP = oauth.DPoP(c, keyPair);
    const send = () =>
      oauth.clientCredentialsGrantRequest(
        as,
        c,
        oauth.ClientSecretBasic(svc.clientSecret),
        { audience: svc.managementAudience },
        {
          DPoP,
          [oauth.allowInsecureRequests]: true,
        },
      );
    let first: unknown;
    let tokens: oauth.TokenEndpointResponse;
    try {
      tokens = await oauth.processClientCredentialsResponse(as, c, await send());
    } catch (err) {
      first = err;
      expect(oauth.isDPoPNonceError(err)).toBe(true);
      tokens = await oauth.processClientCredentialsResponse(as, c, await send());
    }
    expect(first).toBeDefined(); // a fresh handle has no nonce: the first answer is use_dpop_nonce
    expect(tokens.token_type).toBe('dpop');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: svc.url, audience: svc.managementAudience });
    expect(payload.cnf).toEqual({ jkt });
  });

  it('a proof without a nonce: 400 use_dpop_nonce with DPoP-Nonce, nothing stored; with it: 200, DPoP-Nonce again, the jti stored', async () => {
    const key = await proofKey();
    const jti = randomUUID();
    const bare = await ccToken(await proof(key, { jti }));
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ error: 'use_dpop_nonce', error_description: expect.stringContaining('header.dpop') });
    const nonce = bare.headers.get('dpop-nonce');
    expect(nonce).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    expect(await jtiItem(key.jkt, jti)).toBeUndefined();

    const ok = await ccToken(await proof(key, { jti, nonce }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'DPoP', expires_in: expect.any(Number) });
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.headers.get('dpop-nonce')).toBe(nonce);
    const item = await jtiItem(key.jkt, jti);
    expect(item).toBeDefined();
    // Kept until the proof could no longer be accepted anyway: iat + 60 s (+1).
    expect(item!.ttl).toBeGreaterThanOrEqual(nowSeconds() + 55);
    expect(item!.ttl).toBeLessThanOrEqual(nowSeconds() + 62);
  });

  it('no proof: Bearer as before, no DPoP-Nonce', async () => {
    const res = await ccToken(undefined);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.headers.get('dpop-nonce')).toBeNull();
    const { payload } = await jwtVerify(res.body.access_token, jwks(), { issuer: svc.url });
    expect(payload).not.toHaveProperty('cnf');
  });

  it('a DPoP-bound token is no Bearer credential at the management API or as introspection caller (§7.2)', async () => {
    const issued = await ccToken(await proof(await proofKey(), { nonce: await serverNonce() }));
    expect(issued.status).toBe(200);
    const token = issued.body.access_token as string;
    const manage = await fetch(`${svc.url}/identity/v1/clients?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(manage.status).toBe(401);
    expect(await manage.json()).toMatchObject({ code: 'invalid_token', message: expect.stringContaining('DPoP-bound') });
    expect(manage.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token", error_description="[^"]+", algs="ES256 /);
    const introspect = await fetch(`${svc.url}/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
      body: new URLSearchParams({ token }),
    });
    expect(introspect.status).toBe(401);
    expect(await introspect.json()).toMatchObject({ error: 'invalid_token' });
    // A Bearer token of the same client still works there.
    const plain = await ccToken(undefined);
    const ok = await fetch(`${svc.url}/identity/v1/clients?limit=1`, { headers: { authorization: `Bearer ${plain.body.access_token}` } });
    expect(ok.status).toBe(200);
  });

  it('/introspect says token_type DPoP with cnf.jkt (RFC 9449 §6.2); /tokeninfo shows cnf too', async () => {
    const key = await proofKey();
    const issued = await ccToken(await proof(key, { nonce: await serverNonce() }));
    expect(issued.status).toBe(200);
    for (const path of ['/introspect', '/tokeninfo']) {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: defaultAuth },
        body: new URLSearchParams({ token: issued.body.access_token }),
      });
      expect(res.status, path).toBe(200);
      expect(await res.json(), path).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    }
  });

  it('a replayed proof is refused; of concurrent uses of one proof exactly one gets a token', async () => {
    const key = await proofKey();
    const nonce = await serverNonce();
    const once = await proof(key, { nonce });
    expect((await ccToken(once)).status).toBe(200);
    const again = await ccToken(once);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ ...INVALID_PROOF, error_description: 'header.dpop: this proof (its jti) was already used.' });

    const raced = await proof(key, { nonce });
    const answers = await Promise.all(Array.from({ length: 8 }, () => ccToken(raced)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body).toMatchObject(INVALID_PROOF);
  });

  it('a proof for another URL or method is refused; a query on htu is ignored (§4.3 item 9)', async () => {
    const key = await proofKey();
    const nonce = await serverNonce();
    const cases: [Record<string, unknown>, string][] = [
      [{ htu: `${svc.url}/userinfo` }, 'htu'],
      [{ htu: 'https://elsewhere.example.com/token' }, 'htu'],
      [{ htm: 'GET' }, 'htm'],
      [{ htu: 42 }, 'htu'],
    ];
    for (const [claims, part] of cases) {
      const res = await ccToken(await proof(key, { nonce, ...claims }));
      expect(res.status, part).toBe(400);
      expect(res.body, part).toMatchObject(INVALID_PROOF);
      expect(res.body.error_description, part).toContain(part);
    }
    const withQuery = await ccToken(await proof(key, { nonce, htu: `${svc.url}/token?x=1#f` }));
    expect(withQuery.status).toBe(200);
  });

  it('alg none, HS256, a private jwk, a signature by another key, a wrong typ: invalid_dpop_proof', async () => {
    const key = await proofKey();
    const other = await proofKey();
    const nonce = await serverNonce();
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = { jti: randomUUID(), iat: nowSeconds(), htm: 'POST', htu: `${svc.url}/token`, nonce };
    const none = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${b64(claims)}.`;
    // HS256 over a key given in the header (the symmetric-key confusion): signed by hand.
    const secret = Buffer.from('a-shared-secret-of-32-bytes-long!');
    const hsInput = `${b64({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: secret.toString('base64url') } })}.${b64(claims)}`;
    const hs256 = `${hsInput}.${createHmac('sha256', secret).update(hsInput).digest('base64url')}`;
    const privateJwk = await exportJWK(key.privateKey);
    const cases: [string, string][] = [
      [none, 'alg must be one of'],
      [hs256, 'alg must be one of'],
      [await proof(key, { nonce }, { jwk: privateJwk }), 'jwk must be a public key'],
      [await proof(key, { nonce }, {}, other.privateKey), 'signature does not verify'],
      [await proof(key, { nonce }, { typ: 'JWT' }), 'typ must be dpop+jwt'],
      ['not-a-jwt', 'is not a JWT'],
      ['x'.repeat(5000), 'longer than 4096'],
    ];
    for (const [value, why] of cases) {
      const res = await ccToken(value);
      expect(res.status, why).toBe(400);
      expect(res.body, why).toMatchObject(INVALID_PROOF);
      expect(res.body.error_description, why).toContain(why);
      expect(res.body.error_description).not.toContain(value.slice(0, 40));
    }
  });

  it('iat more than 60 s old or ahead is refused', async () => {
    const key = await proofKey();
    const nonce = await serverNonce();
    for (const iat of [nowSeconds() - 120, nowSeconds() + 120]) {
      const res = await ccToken(await proof(key, { nonce, iat }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ ...INVALID_PROOF, error_description: expect.stringContaining('iat must be within 60 s') });
    }
  });

  it('a stale or forged nonce gets use_dpop_nonce with a fresh one', async () => {
    const key = await proofKey();
    const old = await serverNonce();
    offsetMs += 700_000; // more than two 300 s slices later
    try {
      for (const nonce of [old, `${old.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`, 'made-up']) {
        const res = await ccToken(await proof(key, { nonce }));
        expect(res.status, nonce).toBe(400);
        expect(res.body.error).toBe('use_dpop_nonce');
        expect(res.headers.get('dpop-nonce')).not.toBe(old);
      }
    } finally {
      offsetMs -= 700_000;
    }
  });

  it('two DPoP headers: 400 invalid_dpop_proof (§4.3 item 1)', async () => {
    const key = await proofKey();
    const nonce = await serverNonce();
    const [a, b] = [await proof(key, { nonce }), await proof(key, { nonce })];
    const body = new URLSearchParams({ grant_type: 'client_credentials', audience: svc.managementAudience }).toString();
    const { port } = new URL(svc.url);
    // Raw HTTP/1.1: a fetch would join the two values into one header.
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        const head = [
          'POST /token HTTP/1.1',
          `Host: localhost:${port}`,
          'Content-Type: application/x-www-form-urlencoded',
          `Content-Length: ${Buffer.byteLength(body)}`,
          `Authorization: ${defaultAuth}`,
          `DPoP: ${a}`,
          `dpop: ${b}`,
          'Connection: close',
        ];
        socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
      });
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const answer = { status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
    expect(answer.status, answer.body).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ ...INVALID_PROOF, error_description: 'header.dpop: must be sent once.' });
  });

  it('a client with dpop_bound_access_tokens: no proof is 400 invalid_request naming the header', async () => {
    const call = managementCaller(svc.url, await svc.managementToken());
    const created = await call('POST', '/clients', {
      body: { client_name: 'dpop only', client_metadata: { grant_types: ['client_credentials'], dpop_bound_access_tokens: true } },
    });
    expect(created.status).toBe(201);
    const auth = basicAuth(created.body.id, created.body.client_secret);
    const res = await ccToken(undefined, auth);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('header.dpop: is required') });
    // With a proof it passes the DPoP step (and meets the grant's own rules: no permission on the audience).
    const withProof = await ccToken(await proof(await proofKey(), { nonce: await serverNonce() }), auth);
    expect(withProof.status).toBe(400);
    expect(withProof.body.error).toBe('invalid_target');
  });
});

/** A user with a password; `client` logs it in with the password grant. */
async function newUser() {
  const n = Math.random().toString(36).slice(2, 10);
  return putUser(svc.stack.runtime, { email: `dpop.${n}@example.com`, username: `dpop_${n}`, password_hash: passwordHash });
}

describe('refresh tokens and DPoP (RFC 9449 §5)', () => {
  let pub: FlowClient;
  let conf: FlowClient;
  beforeAll(async () => {
    pub = await flowClient(svc, { is_public: true, grant_types: ['password', 'refresh_token'] });
    conf = await flowClient(svc, { grant_types: ['password', 'refresh_token'] });
  });

  it("a public client's refresh token is bound to the key: same key refreshes, another key or none is invalid_grant", async () => {
    const user = await newUser();
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const DPoP = client.getDPoPHandle(pub.config, keyPair);
    const tokens = await client.genericGrantRequest(
      pub.config,
      'password',
      { username: user.username!, password: PASSWORD, scope: 'openid offline_access' },
      { DPoP },
    );
    expect(tokens.token_type).toBe('dpop');
    const stored = await storedItem(svc, keys.refreshToken(secretHash(tokens.refresh_token!)));
    expect(stored).toMatchObject({ client_id: pub.clientId, dpop_jkt: jkt });

    // Another key, and no proof at all: refused, and the family is not revoked for it.
    const stranger = client.getDPoPHandle(pub.config, await client.randomDPoPKeyPair('ES256'));
    await expect(client.refreshTokenGrant(pub.config, tokens.refresh_token!, undefined, { DPoP: stranger })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.refreshTokenGrant(pub.config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await storedItem(svc, keys.refreshToken(secretHash(tokens.refresh_token!)))).not.toHaveProperty('rotated_at');

    const refreshed = await client.refreshTokenGrant(pub.config, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type).toBe('dpop');
    const { payload } = await jwtVerify(refreshed.access_token, jwks(), { issuer: svc.url });
    expect(payload.cnf).toEqual({ jkt });
    // The successor keeps the binding.
    expect(await storedItem(svc, keys.refreshToken(secretHash(refreshed.refresh_token!)))).toMatchObject({ dpop_jkt: jkt });
  });

  it("a confidential client's refresh token is not bound: a refresh with a new key binds the new access token to it", async () => {
    const user = await newUser();
    const first = client.getDPoPHandle(conf.config, await client.randomDPoPKeyPair('ES256'));
    const tokens = await client.genericGrantRequest(
      conf.config,
      'password',
      { username: user.username!, password: PASSWORD, scope: 'openid offline_access' },
      { DPoP: first },
    );
    expect(tokens.token_type).toBe('dpop');
    expect(await storedItem(svc, keys.refreshToken(secretHash(tokens.refresh_token!)))).not.toHaveProperty('dpop_jkt');
    const next = await client.randomDPoPKeyPair('ES256');
    const refreshed = await client.refreshTokenGrant(conf.config, tokens.refresh_token!, undefined, {
      DPoP: client.getDPoPHandle(conf.config, next),
    });
    const { payload } = await jwtVerify(refreshed.access_token, jwks(), { issuer: svc.url });
    expect(payload.cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(next.publicKey)) });
  });
});

describe('code + PKCE with DPoP (public client, openid-client)', () => {
  it('the code redeemed with a proof gives DPoP tokens; the refresh token is bound; fetchUserInfo works with the handle', async () => {
    const pub = await flowClient(svc, { is_public: true, grant_types: ['authorization_code', 'refresh_token'] });
    const user = await newUser();
    const { verifier, challenge } = await pkce();
    const params = {
      client_id: pub.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid email offline_access',
      state: 'st-dpop',
      nonce: 'n-dpop',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const answer = await authorizeThrough(svc, params, await seedSession(svc.stack.runtime, user), user);
    expect(answer.status, answer.body).toBe(303);
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const DPoP = client.getDPoPHandle(pub.config, keyPair);
    const tokens = await client.authorizationCodeGrant(
      pub.config,
      new URL(answer.location!),
      { pkceCodeVerifier: verifier, expectedState: 'st-dpop', expectedNonce: 'n-dpop' },
      undefined,
      { DPoP },
    );
    expect(tokens.token_type).toBe('dpop');
    const { payload } = await jwtVerify(tokens.access_token, jwks(), { issuer: svc.url, audience: `${svc.url}/userinfo` });
    expect(payload).toMatchObject({ sub: user.id, client_id: pub.clientId, cnf: { jkt } });
    expect(await storedItem(svc, keys.refreshToken(secretHash(tokens.refresh_token!)))).toMatchObject({ dpop_jkt: jkt });
    expect(await client.fetchUserInfo(pub.config, tokens.access_token, user.id, { DPoP })).toMatchObject({
      sub: user.id,
      email: user.email,
    });
  });
});

describe('/userinfo with DPoP (RFC 9449 §7)', () => {
  let conf: FlowClient;
  beforeAll(async () => {
    conf = await flowClient(svc, { grant_types: ['password'] });
  });

  /** A DPoP-bound user token of `key` (a proof of our own making). */
  async function boundUserToken(key: ProofKey) {
    const user = await newUser();
    const res = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: conf.auth!,
        dpop: await proof(key, { nonce: await serverNonce() }),
      },
      body: new URLSearchParams({ grant_type: 'password', username: user.username!, password: PASSWORD, scope: 'openid email' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('DPoP');
    return { user, token: body.access_token };
  }
  const userinfo = async (authorization: string, dpop?: string, method = 'GET') => {
    const res = await fetch(`${svc.url}/userinfo`, { method, headers: { authorization, ...(dpop !== undefined ? { dpop } : {}) } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const uiProof = (key: ProofKey, token: string, claims: Record<string, unknown> = {}, signer?: CryptoKey) =>
    proof(key, { htm: 'GET', htu: `${svc.url}/userinfo`, ath: oauthAth(token), ...claims }, {}, signer);

  it('openid-client fetchUserInfo with the DPoP handle; oauth4webapi userInfoRequest with DPoP', async () => {
    const user = await newUser();
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const DPoP = client.getDPoPHandle(conf.config, keyPair);
    const tokens = await client.genericGrantRequest(
      conf.config,
      'password',
      { username: user.username!, password: PASSWORD, scope: 'openid email' },
      { DPoP },
    );
    const claims = await client.fetchUserInfo(conf.config, tokens.access_token, user.id, { DPoP });
    expect(claims).toMatchObject({ sub: user.id, email: user.email });

    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
    const c: oauth.Client = { client_id: conf.clientId };
    const res = await oauth.userInfoRequest(as, c, tokens.access_token, {
      DPoP: oauth.DPoP(c, keyPair),
      [oauth.allowInsecureRequests]: true,
    });
    expect(await oauth.processUserInfoResponse(as, c, user.id, res)).toMatchObject({ sub: user.id });
  });

  it('a proof of the bound key with ath: 200; the same proof again: 401 invalid_dpop_proof', async () => {
    const key = await proofKey();
    const { user, token } = await boundUserToken(key);
    const p = await uiProof(key, token);
    const ok = await userinfo(`DPoP ${token}`, p);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sub: user.id, email: user.email });
    const replay = await userinfo(`DPoP ${token}`, p);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('invalid_dpop_proof');
    expect(replay.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]+", algs="ES256 /);
  });

  it('of concurrent uses of one /userinfo proof exactly one is answered', async () => {
    const key = await proofKey();
    const { token } = await boundUserToken(key);
    const p = await uiProof(key, token);
    const answers = await Promise.all(Array.from({ length: 6 }, () => userinfo(`DPoP ${token}`, p)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.code).toBe('invalid_dpop_proof');
  });

  it('a DPoP-bound token used as Bearer: 401 with a DPoP invalid_token challenge', async () => {
    const key = await proofKey();
    const { token } = await boundUserToken(key);
    for (const [auth, dpop] of [
      [`Bearer ${token}`, undefined],
      [`Bearer ${token}`, await uiProof(key, token)],
    ] as const) {
      const res = await userinfo(auth, dpop);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_token');
      expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    }
    // In the form body, too (RFC 6750 §2.2 is a Bearer use).
    const form = await fetch(`${svc.url}/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: token }),
    });
    expect(form.status).toBe(401);
    expect(form.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
  });

  it('a Bearer token presented with the DPoP scheme is refused', async () => {
    const user = await newUser();
    const plain = await client.genericGrantRequest(conf.config, 'password', {
      username: user.username!,
      password: PASSWORD,
      scope: 'openid',
    });
    expect(plain.token_type).toBe('bearer');
    const key = await proofKey();
    const res = await userinfo(`DPoP ${plain.access_token}`, await uiProof(key, plain.access_token));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    expect((await userinfo(`Bearer ${plain.access_token}`)).status).toBe(200);
  });

  it('no proof, a missing or wrong ath, another key than cnf.jkt, another method or URL: 401 invalid_dpop_proof', async () => {
    const key = await proofKey();
    const other = await proofKey();
    const { token } = await boundUserToken(key);
    const cases: [string | undefined, string][] = [
      [undefined, 'is required'],
      [await uiProof(key, token, { ath: undefined }), 'ath'],
      [await uiProof(key, token, { ath: oauthAth(`${token}x`) }), 'ath'],
      [await uiProof(other, token), 'another key'],
      [await uiProof(key, token, {}, other.privateKey), 'signature'],
      [await uiProof(key, token, { htm: 'POST' }), 'htm'],
      [await uiProof(key, token, { htu: `${svc.url}/token` }), 'htu'],
      [await uiProof(key, token, { iat: nowSeconds() - 300 }), 'iat'],
    ];
    for (const [dpop, why] of cases) {
      const res = await userinfo(`DPoP ${token}`, dpop);
      expect(res.status, why).toBe(401);
      expect(res.body.code, why).toBe('invalid_dpop_proof');
      expect(res.body.message, why).toContain(why);
      expect(res.headers.get('www-authenticate'), why).toMatch(/^DPoP error="invalid_dpop_proof"/);
    }
    // And the right proof still works afterwards.
    expect((await userinfo(`DPoP ${token}`, await uiProof(key, token))).status).toBe(200);
  });
});

/** RFC 9449 §4.2 `ath`. */
function oauthAth(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
