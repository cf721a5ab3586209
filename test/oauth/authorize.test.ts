import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { codeHash } from '#shared/store/sessions/authorization-codes-repository.ts';
import { finishInteraction, readInteraction, seedConsent, seedSession } from '../support/browser/seed-session.ts';
import {
  authorizeThrough,
  authorizeUrl,
  browserGet,
  type FlowClient,
  flowClient,
  interactionOf,
  isActive,
  pkce,
  postToken,
  REDIRECT,
  redeemCode,
  responseParams,
} from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser, updateUser } from '../support/store/user-items.ts';

/**
 * GET|POST /authorize, /authorize/resume and the authorization_code grant end to end (docs/contract.md §5,
 * §5.1, §7.4, §7.8): openid-client is the relying party, tokens are verified with jose against our
 * JWKS, and the login/consent pages' part is played by the pinned items (test/support/browser/seed-session.ts).
 */
let svc: TestService;
let offsetMs = 0;
let pub: FlowClient;
let conf: FlowClient;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + offsetMs) });
  pub = await flowClient(svc, { is_public: true });
  conf = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token', 'implicit'] });
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const newUser = () => putUser(runtime(), { email: `u${Math.random().toString(36).slice(2)}@example.com`, name: 'Ada Lovelace' });
const codeParams = (c: FlowClient, challenge: string | undefined, extra: Record<string, string> = {}) => ({
  client_id: c.clientId,
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid email offline_access',
  state: 'st-1',
  nonce: 'n-1',
  ...(challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {}),
  ...extra,
});
/** A code for `c` through the whole flow (public clients with PKCE). */
const issueCode = async (c: FlowClient, extra: Record<string, string> = {}) => {
  const user = await newUser();
  const session = await seedSession(runtime(), user);
  const { verifier, challenge } = await pkce();
  const answer = await authorizeThrough(svc, codeParams(c, challenge, extra), session, user);
  expect(answer.status, answer.body).toBe(303);
  const code = responseParams(answer.location!).get('code')!;
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { user, session, verifier, challenge, code, answer };
};
const token = (params: Record<string, string>, authorization?: string) => postToken(svc, params, authorization);
const introspect = async (t: string) => ({ active: await isActive(svc, t) });
const redeem = (c: FlowClient, code: string, verifier: string | undefined, extra: Record<string, string> = {}) =>
  redeemCode(svc, c, code, verifier, extra);

describe('code + PKCE with openid-client (RFC 6749 §4.1, RFC 7636, OIDC Core §3.1)', () => {
  it('login page first; the code comes back with state and iss; openid-client redeems it; jose verifies every token', async () => {
    const user = await newUser();
    const session = await seedSession(runtime(), user, { ageSeconds: 30 });
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(pub.config, {
      redirect_uri: REDIRECT,
      scope: 'openid email profile offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
      state,
      max_age: '600',
      login_hint: 'ada@example.com',
    });
    const started = await browserGet(url.href, session.header);
    expect(started.headers.get('cache-control')).toBe('no-store');
    const id = interactionOf(started, svc);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The pinned Interaction shape (flows-plan.md), as the login and consent pages read it.
    const stored = await readInteraction(runtime(), id);
    expect(stored).toMatchObject({
      id,
      kind: 'authorize',
      tenant_id: user.tenant_id,
      client_id: pub.clientId,
      scopes: ['openid', 'email', 'profile', 'offline_access'],
      prompt: [],
      max_age: 600,
      login_hint: 'ada@example.com',
      return_to: `/authorize/resume?interaction=${id}`,
      form_actions: ['https://app.example.com'],
      expires_at: expect.any(String),
    });
    expect(Date.parse(stored!.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);

    await finishInteraction(runtime(), id, session, user.id, 'allow');
    const back = await browserGet(`${svc.url}/authorize/resume?interaction=${id}`, session.header);
    expect(back.status).toBe(303);
    const params = responseParams(back.location!);
    expect(back.location!.startsWith(`${REDIRECT}?`)).toBe(true);
    expect(params.get('state')).toBe(state);
    expect(params.get('iss')).toBe(svc.url); // RFC 9207
    // The code is stored only as its hash, single use, 60 s.
    const item = await storedItem(svc, keys.authorizationCode(codeHash(params.get('code')!)));
    expect(item).toMatchObject({ client_id: pub.clientId, user_id: user.id, redirect_uri: REDIRECT, nonce, auth_time: session.authTime });
    expect(Date.parse(item!.expires_at) - Date.parse(item!.created_at)).toBe(60_000);
    expect(JSON.stringify(item)).not.toContain(params.get('code'));

    const tokens = await client.authorizationCodeGrant(pub.config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: state,
      idTokenExpected: true,
      maxAge: 600,
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const access = await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, audience: `${svc.url}/userinfo`, typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: user.id, client_id: pub.clientId, sid: item!.sid });
    // RS256: the client registered no id_token_signed_response_alg (OIDC Registration §2).
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: pub.clientId, algorithms: ['RS256'] });
    expect(idt.payload).toMatchObject({ sub: user.id, nonce, auth_time: session.authTime, email: user.email, name: 'Ada Lovelace' });
    const atHash = createHash('sha256').update(tokens.access_token).digest().subarray(0, 16).toString('base64url');
    expect(idt.payload.at_hash).toBe(atHash);
    expect(decodeProtectedHeader(tokens.id_token!).kid).toEqual(expect.any(String));
    expect((await storedItem(svc, keys.authorizationCode(codeHash(params.get('code')!))))?.used_at).toEqual(expect.any(String));
    // The new refresh token works (rotation), so the family the code started is live.
    expect((await client.refreshTokenGrant(pub.config, tokens.refresh_token!)).access_token).toEqual(expect.any(String));
  });

  it('POST /authorize (form body) starts the same flow', async () => {
    const { challenge } = await pkce();
    const res = await fetch(`${svc.url}/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(codeParams(pub, challenge)),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${svc.url}/login\\?interaction=[A-Za-z0-9_-]{43}$`));
  });

  it('a confidential client may skip PKCE; the authorization_code_verifier spelling requires a verifier; code is an alias', async () => {
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    const first = await authorizeThrough(svc, codeParams(conf, undefined), session, user);
    const code = responseParams(first.location!).get('code')!;
    const refused = await redeem(conf, code, undefined, { grant_type: 'authorization_code_verifier' });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request', message: 'body.code_verifier: is required.' } });
    const ok = await redeem(conf, code, undefined, { grant_type: 'code' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'openid email offline_access' });
  });

  it('response_mode=form_post answers an auto-submitting form (script allowed by hash, button without JS); openid-client redeems it', async () => {
    const { verifier, challenge } = await pkce();
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    const page = await authorizeThrough(
      svc,
      codeParams(pub, challenge, { response_mode: 'form_post', state: '<script>x</script>' }),
      session,
      user,
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("form-action 'self' https://app.example.com");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(page.body).toContain(`<form method="post" action="${REDIRECT}">`);
    expect(page.body).toContain('<button type="submit">Continue</button>');
    expect(page.body).not.toContain('<script>x</script>'); // the reflected state is escaped
    const fromHtml = (v: string) =>
      v
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    const fields = new URLSearchParams(
      [...page.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
        m[1]!,
        fromHtml(m[2]!),
      ]),
    );
    expect(fields.get('iss')).toBe(svc.url);
    expect(fields.get('state')).toBe('<script>x</script>');
    const posted = new Request(REDIRECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
    const tokens = await client.authorizationCodeGrant(pub.config, posted, {
      pkceCodeVerifier: verifier,
      expectedState: '<script>x</script>',
      expectedNonce: 'n-1',
    });
    expect(tokens.id_token).toEqual(expect.any(String));
  });

  it('the user denies: access_denied with state and iss, nothing issued', async () => {
    const { challenge } = await pkce();
    const user = await newUser();
    const answer = await authorizeThrough(svc, codeParams(pub, challenge), await seedSession(runtime(), user), user, 'deny');
    const p = responseParams(answer.location!);
    expect(Object.fromEntries(p)).toEqual({
      error: 'access_denied',
      error_description: 'The user denied the request.',
      state: 'st-1',
      iss: svc.url,
    });
  });

  it('a loopback IP literal redirect URI matches with any port (RFC 8252 §7.3)', async () => {
    const native = await flowClient(svc, { is_public: true, redirect_uris: ['http://127.0.0.1/cb', 'http://[::1]:8080/cb'] });
    const { challenge } = await pkce();
    for (const uri of ['http://127.0.0.1:51004/cb', 'http://127.0.0.1/cb', 'http://[::1]:1234/cb']) {
      const answer = await browserGet(authorizeUrl(svc, { ...codeParams(native, challenge), redirect_uri: uri }));
      expect(answer.status, uri).toBe(303);
    }
    for (const uri of [
      'http://127.0.0.1:51004/cb/',
      'http://localhost:51004/cb',
      'http://127.0.0.1:51004/CB',
      'https://127.0.0.1:51004/cb',
    ]) {
      const answer = await browserGet(authorizeUrl(svc, { ...codeParams(native, challenge), redirect_uri: uri }));
      expect(answer.status, uri).toBe(400);
      expect(answer.location).toBeNull();
    }
  });
});

describe('implicit (RFC 6749 §4.2, OIDC Core §3.2)', () => {
  const implicit = (responseType: string, extra: Record<string, string> = {}) => ({
    client_id: conf.clientId,
    redirect_uri: REDIRECT,
    response_type: responseType,
    scope: 'openid email',
    state: 's',
    nonce: 'n-imp',
    ...extra,
  });

  it('id_token token: both in the fragment, at_hash binds them, no refresh token', async () => {
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    const answer = await authorizeThrough(svc, implicit('id_token token', { scope: 'openid email offline_access' }), session, user);
    expect(answer.status).toBe(303);
    expect(answer.location!.startsWith(`${REDIRECT}#`)).toBe(true);
    const p = responseParams(answer.location!);
    expect(p.get('refresh_token')).toBeNull();
    expect(p.get('token_type')).toBe('Bearer');
    expect(Number(p.get('expires_in'))).toBeGreaterThan(0);
    expect(p.get('iss')).toBe(svc.url);
    const at = p.get('access_token')!;
    await jwtVerify(at, jwks, { issuer: svc.url, typ: 'at+jwt' });
    const idt = await jwtVerify(p.get('id_token')!, jwks, { issuer: svc.url, audience: conf.clientId });
    expect(idt.payload).toMatchObject({ nonce: 'n-imp', auth_time: session.authTime, email: user.email });
    expect(idt.payload.at_hash).toBe(createHash('sha256').update(at).digest().subarray(0, 16).toString('base64url'));
  });

  it('id_token alone: no access token, no at_hash; openid-client implicitAuthentication accepts it', async () => {
    const user = await newUser();
    const answer = await authorizeThrough(
      svc,
      implicit('id_token', { response_mode: 'fragment' }),
      await seedSession(runtime(), user),
      user,
    );
    const p = responseParams(answer.location!);
    expect(p.get('access_token')).toBeNull();
    // openid-client needs the client registered for response_type=id_token.
    const rp = new client.Configuration(conf.config.serverMetadata(), conf.clientId, conf.secret);
    client.allowInsecureRequests(rp);
    client.useIdTokenResponseType(rp);
    const claims = await client.implicitAuthentication(rp, new URL(answer.location!), 'n-imp', { expectedState: 's' });
    expect(claims).toMatchObject({ sub: user.id, nonce: 'n-imp', email: user.email });
    expect(claims.at_hash).toBeUndefined();
  });

  it('token alone: an access token in the fragment (no nonce needed); response_mode=query is refused for tokens', async () => {
    const user = await newUser();
    const answer = await authorizeThrough(svc, implicit('token', { scope: 'email', nonce: '' }), await seedSession(runtime(), user), user);
    expect(responseParams(answer.location!).get('access_token')).toEqual(expect.any(String));
    const query = await browserGet(authorizeUrl(svc, implicit('token', { response_mode: 'query' })));
    expect(query.location!.startsWith(`${REDIRECT}#`)).toBe(true);
    expect(responseParams(query.location!).get('error')).toBe('invalid_request');
  });

  it('nonce is required with an id_token; a client without the implicit grant gets unauthorized_client', async () => {
    const noNonce = await browserGet(authorizeUrl(svc, implicit('id_token', { nonce: '' })));
    expect(Object.fromEntries(responseParams(noNonce.location!))).toMatchObject({ error: 'invalid_request', state: 's', iss: svc.url });
    const notAllowed = await browserGet(authorizeUrl(svc, { ...implicit('id_token token'), client_id: pub.clientId }));
    expect(responseParams(notAllowed.location!).get('error')).toBe('unauthorized_client');
  });
});

describe('prompt=none and max_age (OIDC Core §3.1.2.1, §3.1.2.6)', () => {
  it('without a session: login_required to the client, with state and iss', async () => {
    const { challenge } = await pkce();
    const answer = await browserGet(authorizeUrl(svc, codeParams(pub, challenge, { prompt: 'none' })));
    expect(Object.fromEntries(responseParams(answer.location!))).toMatchObject({ error: 'login_required', state: 'st-1', iss: svc.url });
  });

  it('with a session and a User Grant covering the scopes: the code at once; without the grant: consent_required', async () => {
    const user = await newUser();
    const session = await seedSession(runtime(), user);
    const { verifier, challenge } = await pkce();
    const params = codeParams(pub, challenge, { prompt: 'none' });
    const before = await browserGet(authorizeUrl(svc, params), session.header);
    expect(responseParams(before.location!).get('error')).toBe('consent_required');
    await seedConsent(runtime(), user, pub.clientId, ['openid', 'email', 'offline_access']);
    const after = await browserGet(authorizeUrl(svc, params), session.header);
    const code = responseParams(after.location!).get('code')!;
    const redeemed = await redeem(pub, code, verifier);
    expect(redeemed.status).toBe(200);
    const idt = await jwtVerify(redeemed.body.id_token, jwks, { issuer: svc.url, audience: pub.clientId });
    expect(idt.payload.auth_time).toBe(session.authTime);
  });

  it('a first-party client needs no grant for OIDC scopes; an ended session or a blocked user is login_required', async () => {
    const first = await flowClient(svc, { is_public: true, is_first_party: true });
    const { challenge } = await pkce();
    const params = codeParams(first, challenge, { prompt: 'none' });
    const user = await newUser();
    const ok = await browserGet(authorizeUrl(svc, params), (await seedSession(runtime(), user)).header);
    expect(responseParams(ok.location!).get('code')).toEqual(expect.any(String));
    const ended = await browserGet(authorizeUrl(svc, params), (await seedSession(runtime(), user, { ended: true })).header);
    expect(responseParams(ended.location!).get('error')).toBe('login_required');
    const other = await newUser();
    const otherSession = await seedSession(runtime(), other);
    await updateUser(runtime(), other, { blocked: true });
    const blocked = await browserGet(authorizeUrl(svc, params), otherSession.header);
    expect(responseParams(blocked.location!).get('error')).toBe('login_required');
  });

  it('max_age older than the login: login_required; prompt=none with another value is invalid_request', async () => {
    const first = await flowClient(svc, { is_public: true, is_first_party: true });
    const { challenge } = await pkce();
    const user = await newUser();
    const session = await seedSession(runtime(), user, { ageSeconds: 120 });
    const old = await browserGet(authorizeUrl(svc, codeParams(first, challenge, { prompt: 'none', max_age: '60' })), session.header);
    expect(responseParams(old.location!).get('error')).toBe('login_required');
    const fresh = await browserGet(authorizeUrl(svc, codeParams(first, challenge, { prompt: 'none', max_age: '300' })), session.header);
    expect(responseParams(fresh.location!).get('code')).toEqual(expect.any(String));
    const mixed = await browserGet(authorizeUrl(svc, codeParams(first, challenge, { prompt: 'none login' })), session.header);
    expect(responseParams(mixed.location!).get('error')).toBe('invalid_request');
  });
});

describe('the authorization_code grant (docs/contract.md §5.1)', () => {
  it('redirect_uri must equal the one at /authorize; a code of another client is refused and revokes nothing', async () => {
    const { code, verifier } = await issueCode(pub);
    const other = await flowClient(svc, { is_public: true, redirect_uris: [REDIRECT] });
    const foreign = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: other.clientId,
    });
    expect(foreign).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongUri = await redeem(pub, code, verifier, { redirect_uri: `${REDIRECT}/` });
    expect(wrongUri).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const ok = await redeem(pub, code, verifier);
    expect(ok.status).toBe(200);
    expect((await introspect(ok.body.access_token)).active).toBe(true);
    // The other client presenting the used code does not end the owner's login.
    await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: other.clientId });
    expect((await introspect(ok.body.access_token)).active).toBe(true);
  });

  it('a code expires after 60 s', async () => {
    const { code, verifier } = await issueCode(pub);
    offsetMs += 61_000;
    try {
      expect(await redeem(pub, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      offsetMs -= 61_000;
    }
  });

  it('a client that does not list authorization_code: unauthorized_client at /authorize and at /token', async () => {
    const cc = await flowClient(svc, { grant_types: ['client_credentials'] });
    const answer = await browserGet(authorizeUrl(svc, codeParams(cc, undefined)));
    expect(responseParams(answer.location!).get('error')).toBe('unauthorized_client');
    const res = await token({ grant_type: 'authorization_code', code: 'x'.repeat(43), redirect_uri: REDIRECT }, cc.auth);
    expect(res).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
  });
});

describe('discovery lists the authorization endpoint', () => {
  it('authorization_endpoint, response types and modes, S256 only, RFC 9207, the code grant', async () => {
    const doc = (await (await fetch(`${svc.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      authorization_endpoint: `${svc.url}/authorize`,
      response_types_supported: ['code', 'token', 'id_token', 'id_token token'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'implicit', 'refresh_token']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['auth_time', 'nonce', 'at_hash']));
  });
});
