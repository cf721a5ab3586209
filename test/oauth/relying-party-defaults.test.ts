import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { buildDiscoveryDocument } from '#shared/oauth/discovery-document.ts';
import { findGrant } from '#shared/oauth/grants/grant-registry.ts';
import { issueUserTokens } from '#shared/oauth/user-tokens/issue-user-tokens.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { deviceCodeHash } from '#shared/store/sessions/device-codes-repository.ts';
import { sessionHash } from '#shared/store/sessions/sessions-repository.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';
import { devicePageDeps } from '#shared/wiring/pages.ts';
import { seedSession } from '../support/browser/seed-session.ts';
import { authorizeThrough, postToken, REDIRECT, responseParams } from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * What a relying party configured with the OIDC defaults meets (docs/client-authentication.md "ID
 * token signing algorithm", docs/tokens.md "ID tokens", docs/keys.md "Discovery"): ID tokens signed
 * with the client's `id_token_signed_response_alg` (RS256 by default, ES256 when set) by every path
 * that issues one, `updated_at` a NumericDate in the ID token and ISO at /userinfo, and a discovery
 * document that promises only what works. openid-client 6 and oauth4webapi 3 are the relying
 * parties; every ID token is verified with jose against our JWKS.
 */
let svc: TestService;
let call: ReturnType<typeof managementCaller>;
let jwks: ReturnType<typeof createRemoteJWKSet>;
let freshJwks: { keys: Record<string, string>[] };
const PASSWORD = 'amber-lantern-42-rowing';
let passwordHash: string;

interface RpClient {
  id: string;
  secret: string;
  auth: string;
}

const GRANTS = ['authorization_code', 'refresh_token', 'implicit', 'password', 'otp'];
const BYE = 'https://app.example.com/signed-out';

/** A confidential client through the management API, with `id_token_signed_response_alg` when given. */
async function rpClient(alg?: 'RS256' | 'ES256'): Promise<RpClient> {
  const made = await call('POST', '/clients', {
    body: {
      client_name: `rp ${alg ?? 'default'}`,
      client_metadata: {
        grant_types: GRANTS,
        urls: { redirect_uris: [REDIRECT], post_logout_redirect_uris: [BYE] },
        ...(alg ? { id_token_signed_response_alg: alg } : {}),
      },
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { id: made.body.id, secret: made.body.client_secret, auth: basicAuth(made.body.id, made.body.client_secret) };
}

/** openid-client's configuration from our discovery, with the client metadata the relying party registered. */
const rpConfig = (c: RpClient, metadata: Partial<client.ClientMetadata> = {}) =>
  client.discovery(new URL(svc.url), c.id, { client_secret: c.secret, ...metadata }, client.ClientSecretBasic(c.secret), {
    execute: [client.allowInsecureRequests],
  });

const newUser = (fields: Partial<UserRecord> = {}) =>
  putUser(svc.stack.runtime, {
    email: `rp.${Math.random().toString(36).slice(2, 10)}@example.com`,
    name: 'Grace Hopper',
    password_hash: passwordHash,
    ...fields,
  });

/** Through /authorize (login and consent as the pages record them) to the redirect's parameters. */
async function authorized(c: RpClient, params: Record<string, string>) {
  const user = await newUser();
  const session = await seedSession(svc.stack.runtime, user);
  const answer = await authorizeThrough(svc, { client_id: c.id, redirect_uri: REDIRECT, state: 'st', ...params }, session, user);
  expect(answer.status, answer.body).toBe(303);
  return { user, session, location: answer.location!, params: responseParams(answer.location!) };
}

/** A code + PKCE login of `c` with openid-client configured by `metadata`: the redirect and what openid-client made of it. */
async function openidClientLogin(c: RpClient, metadata: Partial<client.ClientMetadata> = {}, extra: Record<string, string> = {}) {
  const config = await rpConfig(c, metadata);
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const { user, location } = await authorized(c, {
    response_type: 'code',
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    ...extra,
  });
  const grant = () =>
    client.authorizationCodeGrant(config, new URL(location), { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: 'st' });
  return { config, user, grant };
}

/** The ID token verified with jose against /.well-known/jwks.json, accepting only `alg`. */
async function verifiedIdToken(token: string, audience: string, alg: 'RS256' | 'ES256') {
  const verified = await jwtVerify(token, jwks, { issuer: svc.url, audience, algorithms: [alg] });
  expect(verified.protectedHeader).toEqual({ alg, typ: 'JWT', kid: expect.any(String) });
  // The kid names a published key of that algorithm (RFC 7517 §4.5).
  const published = freshJwks.keys.find((k) => k.kid === verified.protectedHeader.kid);
  expect(published).toMatchObject({ alg, use: 'sig', kty: alg === 'RS256' ? 'RSA' : 'EC' });
  return verified.payload;
}

/** The relying party refused the ID token's `alg` (openid-client wraps oauth4webapi's error as its `cause`). */
async function refusedAlg(attempt: Promise<unknown>) {
  const err = (await attempt.then(
    () => undefined,
    (e: unknown) => e,
  )) as { message?: string; cause?: { message?: string } } | undefined;
  expect(err, 'the relying party accepted the ID token').toBeDefined();
  expect(err!.cause?.message ?? err!.message).toMatch(/unexpected JWT "alg" header parameter/);
}

const atHashOf = (accessToken: string) => createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

let rs: RpClient;
let es: RpClient;

beforeAll(async () => {
  svc = await startTestService();
  // Before any token is signed: what a fresh stage publishes.
  freshJwks = (await (await fetch(`${svc.url}/.well-known/jwks.json`)).json()) as typeof freshJwks;
  call = managementCaller(svc.url, await svc.managementToken());
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
  passwordHash = await hashPassword(PASSWORD);
  rs = await rpClient();
  es = await rpClient('ES256');
});
afterAll(async () => svc?.stop());

describe('keys of a fresh stage (docs/keys.md, docs/contract.md §8)', () => {
  it('the JWKS publishes a current RS256 key and a current ES256 key from the first start', () => {
    const current = (alg: string) => freshJwks.keys.filter((k) => k.alg === alg);
    expect(current('RS256').length).toBeGreaterThanOrEqual(1);
    expect(current('ES256').length).toBeGreaterThanOrEqual(1);
    for (const k of current('RS256')) expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });
});

describe('id_token_signed_response_alg (OIDC Registration §2, OIDC Core §3.1.3.7)', () => {
  it("the issue's failing case: openid-client configured with id_token_signed_response_alg RS256 logs in with code + PKCE against a client left at the default", async () => {
    const { user, grant } = await openidClientLogin(rs, { id_token_signed_response_alg: 'RS256' });
    const tokens = await grant();
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    const claims = await verifiedIdToken(tokens.id_token!, rs.id, 'RS256');
    expect(claims).toMatchObject({ sub: user.id, email: user.email, name: 'Grace Hopper', at_hash: atHashOf(tokens.access_token) });
    // The access token keeps its Resource's algorithm (ES256 for /userinfo tokens): only ID tokens follow the client.
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe('ES256');
  });

  it('the stored client shows what it registered; a client at the default reads no member (RS256 applies)', async () => {
    expect((await call('GET', `/clients/${es.id}`)).body.client_metadata.id_token_signed_response_alg).toBe('ES256');
    expect((await call('GET', `/clients/${rs.id}`)).body.client_metadata.id_token_signed_response_alg ?? 'RS256').toBe('RS256');
  });

  it('a client set to ES256: openid-client configured for ES256 passes, and one expecting RS256 refuses it', async () => {
    const { user, grant } = await openidClientLogin(es, { id_token_signed_response_alg: 'ES256' });
    const tokens = await grant();
    const claims = await verifiedIdToken(tokens.id_token!, es.id, 'ES256');
    expect(claims).toMatchObject({ sub: user.id, at_hash: atHashOf(tokens.access_token) });

    // Attack: an ES256 client never gets an RS256 ID token, so a relying party pinned to RS256 refuses it.
    const pinned = await openidClientLogin(es, { id_token_signed_response_alg: 'RS256' });
    await refusedAlg(pinned.grant());
  });

  it('a client left at the default never gets an ES256 ID token: openid-client pinned to ES256 refuses it', async () => {
    const pinned = await openidClientLogin(rs, { id_token_signed_response_alg: 'ES256' });
    await refusedAlg(pinned.grant());
  });

  it('oauth4webapi with its default expectations (RS256 when neither side says otherwise) accepts the default client', async () => {
    const issuer = new URL(svc.url);
    const discovered = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    // Without the server's list, oauth4webapi expects exactly RS256 (its documented default).
    const { id_token_signing_alg_values_supported: listed, ...as } = discovered;
    expect(listed).toEqual(['RS256', 'ES256']);
    const rpClient: oauth.Client = { client_id: rs.id };
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const { location, user } = await authorized(rs, {
      response_type: 'code',
      scope: 'openid email',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
    });
    const callback = oauth.validateAuthResponse(as, rpClient, new URL(location), 'st');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      rpClient,
      oauth.ClientSecretBasic(rs.secret),
      callback,
      REDIRECT,
      verifier,
      {
        [oauth.allowInsecureRequests]: true,
      },
    );
    const result = await oauth.processAuthorizationCodeResponse(as, rpClient, response, { expectedNonce: nonce, requireIdToken: true });
    expect(oauth.getValidatedIdTokenClaims(result)).toMatchObject({ sub: user.id, aud: rs.id, email: user.email });
    await verifiedIdToken(result.id_token!, rs.id, 'RS256');
  });

  it('oauth4webapi with id_token_signed_response_alg ES256 accepts the ES256 client and refuses the default one', async () => {
    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    const redeem = async (c: RpClient) => {
      const rpClient: oauth.Client = { client_id: c.id, id_token_signed_response_alg: 'ES256' };
      const verifier = oauth.generateRandomCodeVerifier();
      const { location } = await authorized(c, {
        response_type: 'code',
        scope: 'openid',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce: 'n-4w',
      });
      const callback = oauth.validateAuthResponse(as, rpClient, new URL(location), 'st');
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        rpClient,
        oauth.ClientSecretBasic(c.secret),
        callback,
        REDIRECT,
        verifier,
        {
          [oauth.allowInsecureRequests]: true,
        },
      );
      return oauth.processAuthorizationCodeResponse(as, rpClient, response, { expectedNonce: 'n-4w', requireIdToken: true });
    };
    const ok = await redeem(es);
    await verifiedIdToken(ok.id_token!, es.id, 'ES256');
    await refusedAlg(redeem(rs));
  });

  it("refresh_token: the refreshed ID token keeps the client's algorithm (ES256 and RS256)", async () => {
    for (const [c, alg] of [
      [es, 'ES256'],
      [rs, 'RS256'],
    ] as const) {
      const { config, grant } = await openidClientLogin(c, { id_token_signed_response_alg: alg });
      const first = await grant();
      const next = await client.refreshTokenGrant(config, first.refresh_token!);
      const claims = await verifiedIdToken(next.id_token!, c.id, alg);
      expect(claims.at_hash).toBe(atHashOf(next.access_token));
    }
  });

  it('password grant: the ID token follows the client (RS256 default, ES256 set)', async () => {
    for (const [c, alg] of [
      [rs, 'RS256'],
      [es, 'ES256'],
    ] as const) {
      const user = await newUser();
      const res = await postToken(
        svc,
        { grant_type: 'password', username: user.email!, password: PASSWORD, scope: 'openid email' },
        c.auth,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const claims = await verifiedIdToken(res.body.id_token, c.id, alg);
      expect(claims).toMatchObject({ sub: user.id, email: user.email, at_hash: atHashOf(res.body.access_token) });
    }
  });

  it('otp grant: the ID token follows the client (RS256 default, ES256 set)', async () => {
    const { runtime } = svc.stack;
    const otps = otpRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox, {
      maxFailures: runtime.config.login.otpMaxFailures,
    });
    for (const [c, alg] of [
      [rs, 'RS256'],
      [es, 'ES256'],
    ] as const) {
      const user = await newUser({ username: `otp_${Math.random().toString(36).slice(2, 10)}` });
      const secret = base32Decode(await otps.enroll(user.id))!;
      const res = await postToken(
        svc,
        { grant_type: 'otp', username: user.username!, otp: totp(secret, new Date()), scope: 'openid' },
        c.auth,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const claims = await verifiedIdToken(res.body.id_token, c.id, alg);
      expect(claims).toMatchObject({ sub: user.id, at_hash: atHashOf(res.body.access_token) });
    }
  });

  it('device_code: the ID token follows the client (RS256 default, ES256 set)', async () => {
    for (const alg of ['RS256', 'ES256'] as const) {
      const made = await call('POST', '/clients', {
        body: {
          client_name: `tv ${alg}`,
          is_public: true,
          client_metadata: { grant_types: ['device_code'], ...(alg === 'ES256' ? { id_token_signed_response_alg: alg } : {}) },
        },
      });
      expect(made.status).toBe(201);
      const started = await fetch(`${svc.url}/device_code`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: made.body.id, scope: 'openid email' }),
      });
      const { device_code } = (await started.json()) as { device_code: string };
      const user = await newUser();
      // What the /device page records once the user logged in and allowed (test/pages/device-page.test.ts drives the page).
      const decided = await devicePageDeps(svc.stack.runtime).deviceCodes.decide(deviceCodeHash(device_code), {
        decision: 'allow',
        userId: user.id,
        authTime: Math.floor(Date.now() / 1000),
        grantedScopes: ['openid', 'email'],
      });
      expect(decided).toBe(true);
      const res = await postToken(svc, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code,
        client_id: made.body.id,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const claims = await verifiedIdToken(res.body.id_token, made.body.id, alg);
      expect(claims).toMatchObject({ sub: user.id, email: user.email, at_hash: atHashOf(res.body.access_token) });
    }
  });

  it("/authorize's own id_token and id_token token responses follow the client, at_hash with its hash", async () => {
    for (const [c, alg] of [
      [rs, 'RS256'],
      [es, 'ES256'],
    ] as const) {
      const alone = await authorized(c, { response_type: 'id_token', scope: 'openid', nonce: 'n-imp', response_mode: 'fragment' });
      expect(alone.params.get('access_token')).toBeNull();
      const idOnly = await verifiedIdToken(alone.params.get('id_token')!, c.id, alg);
      expect(idOnly).toMatchObject({ sub: alone.user.id, nonce: 'n-imp' });
      expect(idOnly.at_hash).toBeUndefined();

      const both = await authorized(c, { response_type: 'id_token token', scope: 'openid email', nonce: 'n-imp2' });
      const claims = await verifiedIdToken(both.params.get('id_token')!, c.id, alg);
      expect(claims.at_hash).toBe(atHashOf(both.params.get('access_token')!));
    }
  });

  it('attack: an alg or id_token_signed_response_alg on the authorization or token request is ignored', async () => {
    const asked = { alg: 'ES256', id_token_signed_response_alg: 'ES256' };
    const { grant } = await openidClientLogin(rs, { id_token_signed_response_alg: 'RS256' }, asked);
    await verifiedIdToken((await grant()).id_token!, rs.id, 'RS256');

    const user = await newUser();
    const res = await postToken(
      svc,
      {
        grant_type: 'password',
        username: user.email!,
        password: PASSWORD,
        scope: 'openid',
        alg: 'RS256',
        id_token_signed_response_alg: 'RS256',
      },
      es.auth,
    );
    expect(res.status).toBe(200);
    await verifiedIdToken(res.body.id_token, es.id, 'ES256');
  });

  it('a PATCH of the setting applies to the next token at once (the token path drops its copy), and null clears it to RS256', async () => {
    const c = await rpClient();
    const login = async () => {
      const user = await newUser();
      const res = await postToken(svc, { grant_type: 'password', username: user.email!, password: PASSWORD, scope: 'openid' }, c.auth);
      expect(res.status).toBe(200);
      return decodeProtectedHeader(res.body.id_token).alg;
    };
    expect(await login()).toBe('RS256');
    const patched = await call('PATCH', `/clients/${c.id}`, { body: { client_metadata: { id_token_signed_response_alg: 'ES256' } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // The PATCH merged: the other members stay (docs/contract.md §6).
    expect(patched.body.client_metadata).toMatchObject({ id_token_signed_response_alg: 'ES256', grant_types: GRANTS });
    expect(await login()).toBe('ES256');
    const cleared = await call('PATCH', `/clients/${c.id}`, { body: { client_metadata: { id_token_signed_response_alg: null } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.client_metadata.id_token_signed_response_alg ?? 'RS256').toBe('RS256');
    expect(await login()).toBe('RS256');
  });

  it('a kms-sign stage (one ES256 key) gives a client at the default ES256 ID tokens, not a failed login', async () => {
    const { runtime } = svc.stack;
    // The same stage seen as kms-sign: only the key mode differs (kms-sign-mode.test.ts covers its key store).
    const kmsSign = oauthDeps({ ...runtime, config: { ...runtime.config, keyMode: 'kms-sign' } });
    expect(kmsSign.idTokenAlgs).toEqual(['ES256']);
    expect(oauthDeps(runtime).idTokenAlgs).toEqual(['RS256', 'ES256']);
    for (const [deps, alg] of [
      [kmsSign, 'ES256'],
      [oauthDeps(runtime), 'RS256'],
    ] as const) {
      const user = await newUser();
      const tokens = await issueUserTokens(
        {
          client: (await deps.findClient(rs.id))!,
          user,
          request: { scope: 'openid' },
          authTime: Math.floor(Date.now() / 1000),
          authorizedAt: new Date().toISOString(),
        },
        deps,
      );
      await verifiedIdToken(tokens.id_token!, rs.id, alg);
    }
  });

  it('an unknown algorithm is refused at the management API, naming the member', async () => {
    for (const alg of ['HS256', 'none', 'PS256', 'rs256']) {
      const res = await call('PATCH', `/clients/${rs.id}`, { body: { client_metadata: { id_token_signed_response_alg: alg } } });
      expect(res.status, alg).toBe(400);
      expect(res.body.message).toMatch(/^body\.client_metadata\.id_token_signed_response_alg: /);
    }
    expect((await call('GET', `/clients/${rs.id}`)).body.client_metadata.id_token_signed_response_alg ?? 'RS256').toBe('RS256');
  });
});

describe('RP-initiated logout takes an id_token_hint of either algorithm (RP-Initiated Logout 1.0 §2)', () => {
  /** A browser session and an ID token of its user, issued to `c` through the code flow. */
  async function sessionWithIdToken(c: RpClient) {
    const verifier = client.randomPKCECodeVerifier();
    const login = await authorized(c, {
      response_type: 'code',
      scope: 'openid',
      nonce: 'n-lo',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const res = await postToken(
      svc,
      { grant_type: 'authorization_code', code: login.params.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier },
      c.auth,
    );
    expect(res.status).toBe(200);
    return { ...login, idToken: res.body.id_token as string };
  }
  const logout = (idTokenHint: string, cookie: string) =>
    fetch(`${svc.url}/logout?${new URLSearchParams({ id_token_hint: idTokenHint, post_logout_redirect_uri: BYE, state: 'bye' })}`, {
      redirect: 'manual',
      headers: { cookie },
    });
  const endedAt = async (cookie: string) => (await storedItem(svc, keys.session(sessionHash(cookie))))?.ended_at;

  it('an RS256 and an ES256 ID token of ours each end the session and redirect with state', async () => {
    for (const [c, alg] of [
      [rs, 'RS256'],
      [es, 'ES256'],
    ] as const) {
      const { session, idToken } = await sessionWithIdToken(c);
      expect(decodeProtectedHeader(idToken).alg).toBe(alg);
      const res = await logout(idToken, session.header);
      expect(res.status, alg).toBe(303);
      expect(res.headers.get('location')).toBe(`${BYE}?state=bye`);
      expect(res.headers.get('set-cookie')).toMatch(/^session=; Max-Age=0/);
      expect(await endedAt(session.cookie)).toEqual(expect.any(String));
    }
  });

  it('attack: an RS256 hint whose header says ES256, or one signed by another RSA key under our kid, is refused', async () => {
    const { session, idToken } = await sessionWithIdToken(rs);
    const [header, payload, signature] = idToken.split('.');
    const relabelled = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header!, 'base64url').toString()), alg: 'ES256' })).toString('base64url')}.${payload}.${signature}`;
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(decodeJwt(idToken))
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: decodeProtectedHeader(idToken).kid! })
      .sign(privateKey);
    for (const hint of [relabelled, forged]) {
      const res = await logout(hint, session.header);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(await endedAt(session.cookie)).toBeUndefined();
  });
});

describe('updated_at: a number in ID tokens, ISO at /userinfo (OIDC Core §5.1, docs/contract.md §7.6)', () => {
  it('the ID token carries seconds since the epoch; /userinfo the ISO time of the same instant', async () => {
    const { user, config, grant } = await openidClientLogin(rs, { id_token_signed_response_alg: 'RS256' });
    const tokens = await grant();
    const claims = await verifiedIdToken(tokens.id_token!, rs.id, 'RS256');
    expect(typeof claims.updated_at).toBe('number');
    expect(claims.updated_at).toBe(Math.floor(Date.parse(user.updated_at) / 1000));
    expect(tokens.claims()!.updated_at).toBe(claims.updated_at);

    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info.updated_at).toBe(user.updated_at);
    expect(info.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('the refreshed ID token and the implicit one carry the number too', async () => {
    const { config, grant } = await openidClientLogin(es, { id_token_signed_response_alg: 'ES256' });
    const next = await client.refreshTokenGrant(config, (await grant()).refresh_token!);
    expect(typeof decodeJwt(next.id_token!).updated_at).toBe('number');
    const implicit = await authorized(rs, { response_type: 'id_token', scope: 'openid profile', nonce: 'n-u' });
    expect(decodeJwt(implicit.params.get('id_token')!).updated_at).toBe(Math.floor(Date.parse(implicit.user.updated_at) / 1000));
  });
});

describe('discovery promises only what works (RFC 8414 §2, OIDC Discovery §3)', () => {
  let doc: Record<string, any>;
  beforeAll(async () => {
    const res = await fetch(`${svc.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Record<string, any>;
  });

  it('id_token_signing_alg_values_supported is exactly what a client may choose, RS256 first; kms-sign mode signs ES256 only', () => {
    expect(doc.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    const base = { issuer: svc.url, docsUrl: undefined };
    expect(buildDiscoveryDocument({ ...base, keyMode: 'envelope' }).id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect(buildDiscoveryDocument({ ...base, keyMode: 'kms-sign' }).id_token_signing_alg_values_supported).toEqual(['ES256']);
  });

  it('request objects are not supported, and it says so for both (request_uri would default to true)', async () => {
    expect(doc.request_parameter_supported).toBe(false);
    expect(doc.request_uri_parameter_supported).toBe(false);
    // What /authorize does with one: refused, as promised.
    const res = await fetch(
      `${svc.url}/authorize?${new URLSearchParams({ client_id: rs.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', nonce: 'n', request: 'eyJhbGciOiJub25lIn0.e30.' })}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('request_not_supported');
  });

  it('grant_types_supported lists registered names only, each a grant that works, no alias and no otp', () => {
    expect(doc.grant_types_supported).toEqual([
      'client_credentials',
      'refresh_token',
      'password',
      'authorization_code',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'implicit',
    ]);
    for (const alias of ['code', 'authorization_code_verifier', 'device_code', 'token_exchange', 'otp']) {
      expect(doc.grant_types_supported, alias).not.toContain(alias);
    }
    for (const name of doc.grant_types_supported.filter((g: string) => g !== 'implicit')) expect(findGrant(name), name).toBeDefined();
  });

  it('every listed /token grant is dispatched over HTTP (unauthorized_client for a client without it, never unsupported_grant_type)', async () => {
    const bare = await call('POST', '/clients', {
      body: { client_name: 'no grants', client_metadata: { grant_types: ['implicit'], urls: { redirect_uris: [REDIRECT] } } },
    });
    expect(bare.status).toBe(201);
    for (const grant_type of doc.grant_types_supported.filter((g: string) => g !== 'implicit')) {
      const res = await postToken(
        svc,
        {
          grant_type,
          code: 'x',
          redirect_uri: REDIRECT,
          refresh_token: 'x',
          username: 'x',
          password: 'x',
          device_code: 'x',
          subject_token: 'x',
          subject_token_type: 'x',
        },
        basicAuth(bare.body.id, bare.body.client_secret),
      );
      expect(res.status, grant_type).toBe(400);
      expect(res.body.error, grant_type).toBe('unauthorized_client');
    }
  });

  it('claims_supported names every claim an ID token of ours carries', async () => {
    const user = await newUser({ phone_number: '+15550002222', birthdate: '1906-12-09', address: { country: 'US' } });
    const res = await postToken(
      svc,
      { grant_type: 'password', username: user.email!, password: PASSWORD, scope: 'openid profile email address phone' },
      rs.auth,
    );
    expect(res.status).toBe(200);
    for (const claim of Object.keys(decodeJwt(res.body.id_token))) expect(doc.claims_supported, claim).toContain(claim);
  });

  it('OpenAPI shows the client_metadata member a client sets it with', async () => {
    const res = await fetch(`${svc.url}/openapi.json`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"id_token_signed_response_alg"');
    const found = [...text.matchAll(/"id_token_signed_response_alg":\{[^}]*\}/g)].map((m) => m[0]);
    expect(
      found.some((s) => s.includes('"RS256"') && s.includes('"ES256"')),
      found.join('\n'),
    ).toBe(true);
  });
});
