import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_BEARER_ASSERTION_TYPE } from '#shared/oauth/client-auth/client-assertion.ts';
import { secretHash } from '#shared/store/core/secret-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { finishInteraction, readInteraction, seedConsent, seedSession } from '../support/browser/seed-session.ts';
import { type Answer, browserGet, interactionOf, pkce, REDIRECT, responseParams } from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Pushed authorization requests end to end (RFC 9126; docs/client-authentication.md "Pushed
 * authorization requests (PAR)"): POST /par with openid-client and oauth4webapi as relying
 * parties, then /authorize?client_id&request_uri through login, consent and /authorize/resume
 * (the pages' part played by the pinned items, test/support/browser/seed-session.ts), ending in
 * tokens verified with jose; and the attacks on request_uri kept as tests.
 */
let svc: TestService;
let offsetMs = 0;
let jwks: ReturnType<typeof createRemoteJWKSet>;
let conf: ParClient;
let pub: ParClient;
let strict: ParClient;

interface ParClient {
  clientId: string;
  secret: string | undefined;
  /** Basic header of a confidential client. */
  auth: string | undefined;
  config: client.Configuration;
}

/**
 * A client through the management API. ES256 ID tokens, chosen explicitly: what the relying
 * parties expect then does not depend on the default algorithm.
 */
async function parClient(o: { is_public?: boolean; require_par?: boolean } = {}): Promise<ParClient> {
  const call = managementCaller(svc.url, await svc.managementToken());
  const created = await call('POST', '/clients', {
    body: {
      client_name: 'par test',
      is_public: o.is_public ?? false,
      client_metadata: {
        grant_types: ['authorization_code', 'refresh_token'],
        urls: { redirect_uris: [REDIRECT] },
        id_token_signed_response_alg: 'ES256',
        ...(o.require_par ? { require_pushed_authorization_requests: true } : {}),
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const clientId: string = created.body.id;
  const secret: string | undefined = created.body.client_secret;
  const auth = secret ? client.ClientSecretBasic(secret) : client.None();
  const config = await client.discovery(new URL(svc.url), clientId, { id_token_signed_response_alg: 'ES256' }, auth, {
    execute: [client.allowInsecureRequests],
  });
  return { clientId, secret, auth: secret ? basicAuth(clientId, secret) : undefined, config };
}

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + offsetMs) });
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
  [conf, pub, strict] = await Promise.all([parClient(), parClient({ is_public: true }), parClient({ require_par: true })]);
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const newUser = () => putUser(runtime(), { email: `p${Math.random().toString(36).slice(2)}@example.com`, name: 'Grace Hopper' });

/** POST /par with a form body (and a Basic header for a confidential client). */
async function push(params: Record<string, string>, authorization?: string, init: { body?: string; contentType?: string } = {}) {
  const res = await fetch(`${svc.url}/par`, {
    method: 'POST',
    headers: {
      'content-type': init.contentType ?? 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: init.body ?? new URLSearchParams(params).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const codeRequest = (c: ParClient, challenge: string, extra: Record<string, string> = {}) => ({
  client_id: c.clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid email',
  state: 'pushed-state',
  nonce: 'pushed-nonce',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...extra,
});

/** A request pushed by `c`: its request_uri and PKCE verifier. */
async function pushed(c: ParClient, extra: Record<string, string> = {}) {
  const { verifier, challenge } = await pkce();
  const res = await push(codeRequest(c, challenge, extra), c.auth);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { requestUri: res.body.request_uri as string, verifier };
}

const authorizeWith = (params: Record<string, string>, cookie?: string) =>
  browserGet(`${svc.url}/authorize?${new URLSearchParams(params)}`, cookie);

/** Every PAR# item of the table. */
async function pushedItems() {
  const out = await runtime().db.send(
    new ScanCommand({
      TableName: svc.stack.tableName,
      FilterExpression: 'begins_with(PK, :p)',
      ExpressionAttributeValues: { ':p': 'PAR#' },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

const expectErrorPage = (answer: Answer, text: string) => {
  expect(answer.status).toBe(400);
  expect(answer.location).toBeNull();
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(answer.body).toContain(text);
};

/** /authorize with the request_uri → login → consent → /authorize/resume: the resume's answer. */
async function completeWith(c: ParClient, requestUri: string, front: Record<string, string> = {}) {
  const user = await newUser();
  const session = await seedSession(runtime(), user);
  const started = await authorizeWith({ ...front, client_id: c.clientId, request_uri: requestUri }, session.header);
  const interaction = interactionOf(started, svc);
  await finishInteraction(runtime(), interaction, session, user.id, 'allow');
  const back = await browserGet(`${svc.url}/authorize/resume?interaction=${interaction}`, session.header);
  expect(back.status, back.body).toBe(303);
  return { user, session, interaction, back };
}

describe('POST /par (RFC 9126 §2)', () => {
  it('discovery names the endpoint; the stage does not require PAR (RFC 9126 §5)', async () => {
    const doc = (await (await fetch(`${svc.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.pushed_authorization_request_endpoint).toBe(`${svc.url}/par`);
    expect(doc.require_pushed_authorization_requests).toBe(false);
  });

  it('201 with a 256-bit request_uri and expires_in 60, no-store; stored by its hash with the validated parameters only', async () => {
    const { challenge } = await pkce();
    const res = await push({ ...codeRequest(conf, challenge), client_secret_ignored: 'x', ui_locales: 'de' }, conf.auth);
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/),
      expires_in: 60,
    });
    const item = await storedItem(svc, keys.pushedRequest(secretHash(res.body.request_uri)));
    expect(item).toMatchObject({
      PK: `PAR#${secretHash(res.body.request_uri)}`,
      type: 'PushedAuthorizationRequest',
      client_id: conf.clientId,
      params: {
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid email',
        state: 'pushed-state',
        nonce: 'pushed-nonce',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    });
    // Only the authorization parameters: no credential, no unknown parameter, never the value itself.
    expect(Object.keys(item!.params).sort()).toEqual(
      ['code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state'].sort(),
    );
    expect(JSON.stringify(item)).not.toContain(res.body.request_uri.split(':').pop());
    expect(JSON.stringify(item)).not.toContain(conf.secret!);
    expect(Date.parse(item!.expires_at) - Date.parse(item!.created_at)).toBe(60_000);
    expect(item!.ttl).toBe(Math.floor(Date.parse(item!.expires_at) / 1000));
  });

  it('client_secret_post authenticates too; a public client pushes with its client_id', async () => {
    const { challenge } = await pkce();
    const post = await push({ ...codeRequest(conf, challenge), client_secret: conf.secret! });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const open = await push(codeRequest(pub, challenge));
    expect(open.status, JSON.stringify(open.body)).toBe(201);
    expect((await storedItem(svc, keys.pushedRequest(secretHash(open.body.request_uri))))?.client_id).toBe(pub.clientId);
  });

  it('without client authentication: 401 invalid_client, nothing stored', async () => {
    const before = (await pushedItems()).length;
    const { challenge } = await pkce();
    const bare = await push(codeRequest(conf, challenge)); // a confidential client's id alone
    expect(bare.status).toBe(401);
    expect(bare.body).toMatchObject({ error: 'invalid_client' });
    expect(bare.headers.get('www-authenticate')).toMatch(/^Basic /);
    const wrong = await push(codeRequest(conf, challenge), basicAuth(conf.clientId, 'not-the-secret'));
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
    const none = await push({ response_type: 'code', redirect_uri: REDIRECT });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'invalid_client' });
    expect((await pushedItems()).length).toBe(before);
  });

  it('a redirect_uri not registered: 400 invalid_request as JSON (never a redirect), nothing stored', async () => {
    const before = (await pushedItems()).length;
    const { challenge } = await pkce();
    for (const redirect_uri of ['https://evil.example/cb', `${REDIRECT}/`, `${REDIRECT}?x=1`]) {
      const res = await push(codeRequest(conf, challenge, { redirect_uri }), conf.auth);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('location')).toBeNull();
      expect(res.body).toMatchObject({ error: 'invalid_request', error_description: 'redirect_uri: is not registered for this client.' });
    }
    const missing = await push({ response_type: 'code', scope: 'openid' }, conf.auth);
    expect(missing.body).toMatchObject({ error: 'invalid_request', error_description: 'redirect_uri: is required.' });
    expect((await pushedItems()).length).toBe(before);
  });

  it("the same checks as /authorize, as JSON 400 with /authorize's error codes; nothing stored", async () => {
    const before = (await pushedItems()).length;
    const { challenge } = await pkce();
    const cases: [Record<string, string>, ParClient, string, RegExp][] = [
      [{ code_challenge: '', code_challenge_method: '' }, pub, 'invalid_request', /^code_challenge: is required for public clients/],
      [{ code_challenge_method: 'plain' }, conf, 'invalid_request', /^code_challenge_method: only S256/],
      [{ response_type: 'token' }, conf, 'unauthorized_client', /implicit/],
      [{ response_type: 'code id_token token x' }, conf, 'unsupported_response_type', /^response_type/],
      [{ scope: 'openid "bad' }, conf, 'invalid_scope', /^scope/],
      [{ prompt: 'none login' }, conf, 'invalid_request', /^prompt/],
      [{ max_age: '-1' }, conf, 'invalid_request', /^max_age/],
      [{ audience: 'https://nowhere.example/api' }, conf, 'invalid_target', /^audience/],
      [{ connection: 'no-such-provider' }, conf, 'invalid_request', /^connection/],
      [{ request: 'eyJhbGciOiJub25lIn0.e30.' }, conf, 'request_not_supported', /^request/],
    ];
    for (const [extra, c, error, description] of cases) {
      const res = await push(codeRequest(c, challenge, extra), c.auth);
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body, JSON.stringify(extra)).toMatchObject({ error, error_description: expect.stringMatching(description) });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await pushedItems()).length).toBe(before);
  });

  it('request_uri in the pushed body: 400 invalid_request (RFC 9126 §2.1); another client_id than the authenticated one: 400', async () => {
    const { requestUri } = await pushed(conf);
    const { challenge } = await pkce();
    const res = await push(codeRequest(conf, challenge, { request_uri: requestUri }), conf.auth);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^request_uri: cannot be pushed/),
    });
    const other = await push(codeRequest(conf, challenge, { client_id: pub.clientId }), conf.auth);
    expect(other.status).toBe(400);
    expect(other.body).toMatchObject({ error: 'invalid_request' });
  });

  it('bounds first: a repeated parameter, more than 40 parameters, a body over 16 KB (413), a JSON body (415)', async () => {
    const before = (await pushedItems()).length;
    const repeated = await push({}, conf.auth, {
      body: `response_type=code&scope=openid&scope=email&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body).toMatchObject({ error: 'invalid_request', error_description: 'body.scope: must not be repeated.' });
    const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`p${i}`, 'x']));
    const tooMany = await push(many, conf.auth);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('at most 40 parameters') });
    const big = await push(
      {
        response_type: 'code',
        state: 'x'.repeat(4000),
        a: 'y'.repeat(4000),
        b: 'y'.repeat(4000),
        c: 'y'.repeat(4000),
        d: 'y'.repeat(1000),
      },
      conf.auth,
    );
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'payload_too_large' });
    const json = await push({}, conf.auth, {
      body: JSON.stringify({ response_type: 'code', redirect_uri: REDIRECT }),
      contentType: 'application/json',
    });
    expect(json.status).toBe(415);
    expect(json.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('application/x-www-form-urlencoded'),
    });
    expect((await pushedItems()).length).toBe(before);
  });
});

describe('/authorize with a pushed request (RFC 9126 §4)', () => {
  it('openid-client: buildAuthorizationUrlWithPAR, login and consent, the code with the pushed state; tokens verified with jose', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithPAR(conf.config, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    // RFC 9126 §4: the front channel carries client_id and request_uri only.
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const requestUri = url.searchParams.get('request_uri')!;
    const { user, session, interaction, back } = await completeWith(conf, requestUri);
    // The pushed request was taken when /authorize used it; the interaction holds what it resolved to.
    expect(await storedItem(svc, keys.pushedRequest(secretHash(requestUri)))).toBeUndefined();
    expect(await readInteraction(runtime(), interaction)).toBeUndefined(); // consumed by the resume
    const params = responseParams(back.location!);
    expect(back.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(params.get('state')).toBe(state);
    expect(params.get('iss')).toBe(svc.url);
    const tokens = await client.authorizationCodeGrant(conf.config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const access = await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, audience: `${svc.url}/userinfo`, typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: user.id, client_id: conf.clientId, scope: 'openid email offline_access' });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: conf.clientId, algorithms: ['ES256'] });
    expect(idt.payload).toMatchObject({ sub: user.id, nonce, auth_time: session.authTime, email: user.email });
  });

  it('oauth4webapi, public client: pushedAuthorizationRequest, processPushedAuthorizationResponse, the code redeemed with PKCE', async () => {
    const issuer = new URL(svc.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true }));
    const c: oauth.Client = { client_id: pub.clientId, id_token_signed_response_alg: 'ES256' };
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const state = oauth.generateRandomState();
    const response = await oauth.pushedAuthorizationRequest(
      as,
      c,
      oauth.None(),
      {
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid email',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
        state,
      },
      { [oauth.allowInsecureRequests]: true },
    );
    const par = await oauth.processPushedAuthorizationResponse(as, c, response);
    expect(par.expires_in).toBe(60);
    const { user, back } = await completeWith(pub, par.request_uri);
    const callback = oauth.validateAuthResponse(as, c, new URL(back.location!), state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(as, c, oauth.None(), callback, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, c, tokenResponse, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ sub: user.id, nonce, aud: pub.clientId });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: pub.clientId });
    expect(idt.payload.email).toBe(user.email);
  });

  it('front-channel parameters beside request_uri are ignored: redirect_uri, scope, state, response_type and nonce are the pushed ones', async () => {
    const { requestUri, verifier } = await pushed(conf, { scope: 'openid' });
    const { back } = await completeWith(conf, requestUri, {
      redirect_uri: 'https://evil.example/cb',
      scope: 'openid email offline_access',
      state: 'front-state',
      response_type: 'token',
      response_mode: 'fragment',
      nonce: 'front-nonce',
      code_challenge: 'A'.repeat(43),
      code_challenge_method: 'S256',
      prompt: 'none',
    });
    expect(back.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const params = responseParams(back.location!);
    expect(params.get('state')).toBe('pushed-state');
    const tokens = await client.authorizationCodeGrant(conf.config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: 'pushed-state',
      expectedNonce: 'pushed-nonce',
    });
    expect(tokens.scope).toBe('openid');
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('a request_uri used twice: the second use is the error page', async () => {
    const { requestUri } = await pushed(conf);
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    interactionOf(await authorizeWith({ client_id: conf.clientId, request_uri: requestUri }, session.header), svc);
    const again = await authorizeWith({ client_id: conf.clientId, request_uri: requestUri }, session.header);
    expectErrorPage(again, 'request_uri: is unknown, was already used, or was pushed by another client.');
  });

  it('concurrent uses of one request_uri: exactly one starts a sign-in, the others get the error page', async () => {
    const { requestUri } = await pushed(conf);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => authorizeWith({ client_id: conf.clientId, request_uri: requestUri }, undefined)),
    );
    expect(answers.filter((a) => a.status === 303)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 303)) expectErrorPage(a, 'request_uri: is unknown');
    interactionOf(answers.find((a) => a.status === 303)!, svc);
  });

  it('prompt=none pushed with a session and a User Grant: the code at once, as /authorize answers', async () => {
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    await seedConsent(runtime(), user, conf.clientId, ['openid', 'email']);
    const { requestUri, verifier } = await pushed(conf, { prompt: 'none' });
    const answer = await authorizeWith({ client_id: conf.clientId, request_uri: requestUri }, session.header);
    expect(answer.status).toBe(303);
    expect(answer.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const tokens = await client.authorizationCodeGrant(conf.config, new URL(answer.location!), {
      pkceCodeVerifier: verifier,
      expectedState: 'pushed-state',
      expectedNonce: 'pushed-nonce',
    });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: conf.clientId });
    expect(idt.payload.sub).toBe(user.id);
    // Without a session the same pushed request says login_required to the pushed redirect URI.
    const second = await pushed(conf, { prompt: 'none' });
    const silent = await authorizeWith({ client_id: conf.clientId, request_uri: second.requestUri });
    expect(responseParams(silent.location!).get('error')).toBe('login_required');
    expect(responseParams(silent.location!).get('state')).toBe('pushed-state');
  });

  it('used by another client: the error page, and the pushed request stays usable by its own client', async () => {
    const { requestUri } = await pushed(conf);
    const stolen = await authorizeWith({ client_id: pub.clientId, request_uri: requestUri });
    expectErrorPage(stolen, 'request_uri: is unknown, was already used, or was pushed by another client.');
    expect(await storedItem(svc, keys.pushedRequest(secretHash(requestUri)))).toMatchObject({ client_id: conf.clientId });
    interactionOf(await authorizeWith({ client_id: conf.clientId, request_uri: requestUri }), svc);
  });

  it('expired (61 s later): invalid_request_uri to the pushed redirect URI with the pushed state; not usable', async () => {
    const { requestUri } = await pushed(conf);
    offsetMs = 61_000;
    try {
      const late = await authorizeWith({ client_id: conf.clientId, request_uri: requestUri, redirect_uri: 'https://evil.example/cb' });
      expect(late.status).toBe(303);
      expect(late.location!.startsWith(`${REDIRECT}?`)).toBe(true);
      const params = responseParams(late.location!);
      expect(params.get('error')).toBe('invalid_request_uri');
      expect(params.get('error_description')).toBe('request_uri: has expired; push the request again.');
      expect(params.get('state')).toBe('pushed-state');
      expect(params.get('iss')).toBe(svc.url);
      // The expired item is not taken: another client still learns nothing from it.
      expectErrorPage(await authorizeWith({ client_id: pub.clientId, request_uri: requestUri }), 'request_uri: is unknown');
    } finally {
      offsetMs = 0;
    }
  });

  it('a request_uri not of our form, unknown, repeated, or without client_id: the error page, nothing read', async () => {
    const forms = [
      'https://evil.example/request.jwt',
      'urn:ietf:params:oauth:request_uri:short',
      `urn:ietf:params:oauth:request_uri:${'A'.repeat(43)}x`,
      `urn:example:${'A'.repeat(43)}`,
    ];
    for (const request_uri of forms) {
      expectErrorPage(await authorizeWith({ client_id: conf.clientId, request_uri }), 'request_uri: was not issued by this server.');
    }
    expectErrorPage(
      await authorizeWith({ client_id: conf.clientId, request_uri: `urn:ietf:params:oauth:request_uri:${'A'.repeat(43)}` }),
      'request_uri: is unknown',
    );
    const { requestUri } = await pushed(conf);
    expectErrorPage(await authorizeWith({ request_uri: requestUri }), 'client_id: is required with request_uri, once.');
    const twice = await browserGet(
      `${svc.url}/authorize?client_id=${conf.clientId}&request_uri=${encodeURIComponent(requestUri)}&request_uri=${encodeURIComponent(requestUri)}`,
    );
    expectErrorPage(twice, 'request_uri: was not issued by this server.');
    // None of these took it.
    interactionOf(await authorizeWith({ client_id: conf.clientId, request_uri: requestUri }), svc);
  });

  it('POST /authorize with the request_uri in a form works as GET', async () => {
    const { requestUri } = await pushed(conf);
    const res = await fetch(`${svc.url}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: conf.clientId, request_uri: requestUri }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${svc.url}/login\\?interaction=`));
  });
});

describe('require_pushed_authorization_requests (RFC 9126 §5)', () => {
  it('such a client at /authorize without request_uri: invalid_request to its redirect URI; through /par it signs in', async () => {
    const { challenge } = await pkce();
    const direct = await authorizeWith(codeRequest(strict, challenge));
    expect(direct.status).toBe(303);
    expect(direct.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    const params = responseParams(direct.location!);
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toMatch(/^request_uri: this client must push/);
    expect(params.get('state')).toBe('pushed-state');
    // An unregistered redirect URI is still the error page, never a redirect.
    expectErrorPage(await authorizeWith(codeRequest(strict, challenge, { redirect_uri: 'https://evil.example/cb' })), 'redirect_uri');

    const { requestUri, verifier } = await pushed(strict);
    const { back } = await completeWith(strict, requestUri);
    const tokens = await client.authorizationCodeGrant(strict.config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: 'pushed-state',
      expectedNonce: 'pushed-nonce',
    });
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('the setting is returned on read and can be cleared with null; the client then may use /authorize directly', async () => {
    const call = managementCaller(svc.url, await svc.managementToken());
    const extra = await parClient({ require_par: true });
    const read = await call('GET', `/clients/${extra.clientId}`);
    expect(read.body.client_metadata.require_pushed_authorization_requests).toBe(true);
    const cleared = await call('PATCH', `/clients/${extra.clientId}`, {
      body: { client_metadata: { require_pushed_authorization_requests: null } },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    const { challenge } = await pkce();
    interactionOf(await authorizeWith(codeRequest(extra, challenge)), svc);
  });
});

describe('private_key_jwt at /par (RFC 7523 §2.2)', () => {
  /** A confidential client that authenticates with an ES256 key only. */
  async function keyClient() {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const kid = randomUUID();
    const call = managementCaller(svc.url, await svc.managementToken());
    const created = await call('POST', '/clients', {
      body: {
        client_name: 'par key client',
        client_metadata: {
          grant_types: ['authorization_code'],
          urls: { redirect_uris: [REDIRECT] },
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' }] },
          id_token_signed_response_alg: 'ES256',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;
    const assertion = (claims: Record<string, unknown> = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: id, sub: id, aud: svc.url, jti: randomUUID(), iat: now, exp: now + 60, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid })
        .sign(pair.privateKey);
    };
    return { id, privateKey: pair.privateKey, kid, assertion };
  }
  const withAssertion = (clientId: string, jwt: string, challenge: string) => ({
    ...codeRequest({ clientId } as ParClient, challenge),
    client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
    client_assertion: jwt,
  });

  it('openid-client with PrivateKeyJwt pushes; the sign-in completes and the code is redeemed with a new assertion', async () => {
    const k = await keyClient();
    const config = await client.discovery(
      new URL(svc.url),
      k.id,
      { id_token_signed_response_alg: 'ES256' },
      client.PrivateKeyJwt({ key: k.privateKey, kid: k.kid }),
      { execute: [client.allowInsecureRequests] },
    );
    const verifier = client.randomPKCECodeVerifier();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'kst',
      nonce: 'knc',
    });
    const item = await storedItem(svc, keys.pushedRequest(secretHash(url.searchParams.get('request_uri')!)));
    expect(item).toMatchObject({ client_id: k.id, params: { state: 'kst', redirect_uri: REDIRECT } });
    // The assertion is a credential: never stored with the request.
    expect(Object.keys(item!.params)).not.toContain('client_assertion');
    const { user, back } = await completeWith({ clientId: k.id } as ParClient, url.searchParams.get('request_uri')!);
    const tokens = await client.authorizationCodeGrant(config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: 'kst',
      expectedNonce: 'knc',
    });
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: k.id, algorithms: ['ES256'] });
    expect(idt.payload.sub).toBe(user.id);
  });

  it('a replayed assertion, one made for /token, or the client_id alone: 401 invalid_client, nothing stored', async () => {
    const k = await keyClient();
    const { challenge } = await pkce();
    const jwt = await k.assertion({ aud: `${svc.url}/par` });
    const first = await push(withAssertion(k.id, jwt, challenge));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const before = (await pushedItems()).length;
    const replay = await push(withAssertion(k.id, jwt, challenge));
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ error: 'invalid_client' });
    const forToken = await push(withAssertion(k.id, await k.assertion({ aud: `${svc.url}/token` }), challenge));
    expect(forToken.status).toBe(401);
    expect(forToken.body).toMatchObject({ error: 'invalid_client' });
    const bare = await push(codeRequest({ clientId: k.id } as ParClient, challenge));
    expect(bare.status).toBe(401);
    expect((await pushedItems()).length).toBe(before);
  });
});
