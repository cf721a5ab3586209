import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderRecord } from '#shared/records/identity-provider-record.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { getItem } from '#shared/store/core/reads/read-items.ts';
import { secretHash } from '#shared/store/core/secret-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { identityProvidersRepository } from '#shared/store/federation/identity-providers-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { CookieJar } from '../support/browser/pages-fixture.ts';
import { eventsOf, expectEvent, TEST_AGENT } from '../support/events/flow-events.ts';
import { type FlowClient, flowClient } from '../support/oauth/authorize-flow.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser, updateUser } from '../support/store/user-items.ts';

/**
 * Federated login end to end (docs/federation.md "Federated login"): our relying party
 * (openid-client) → our /authorize?connection= → a real OpenID provider (node-oidc-provider, its
 * development sign-in pages) → our /login/callback → our consent page → the code → tokens. Chromium
 * drives the pages; the stored user, its identity marker and the federated sign-in item are read
 * back from DynamoDB Local.
 */
let svc: TestService;
let idp: ExternalProvider;
let browser: Browser;
let rp: Server;
let callback: string;
let app: FlowClient;
let acme: IdentityProviderRecord;
let scripted: IdentityProviderRecord;
let disabled: IdentityProviderRecord;
let n = 0;

beforeAll(async () => {
  svc = await startTestService();
  idp = await startExternalProvider({ alg: 'RS256', login: { redirectUri: `${svc.url}/login/callback` } });
  browser = await launchChromium();
  rp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>back</p>'));
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  app = await flowClient(svc, { is_public: true, redirect_uris: ['http://127.0.0.1/cb'] });
  // Written straight through the store: the management API's provider routes are another group's tests.
  const { runtime } = svc.stack;
  const providers = identityProvidersRepository(runtime.db, runtime.config.tableName, runtime.now);
  const sealed = await runtime.secretBox.seal(idp.loginClient!.clientSecret);
  const base = { tenant_id: DEFAULT_TENANT_ID, issuer: idp.issuer, client_id: idp.loginClient!.clientId, client_secret_sealed: sealed };
  const actor = '00000000-0000-0000-0000-000000000000';
  acme = await providers.create({ ...base, provider_name: 'acme', scopes: ['openid', 'email', 'profile'], enabled: true }, actor);
  scripted = await providers.create({ ...base, provider_name: '<script>alert(1)</script>', scopes: ['openid'], enabled: true }, actor);
  disabled = await providers.create({ ...base, provider_name: 'dormant', scopes: ['openid'], enabled: false }, actor);
});
afterAll(async () => {
  await browser?.close();
  rp?.close();
  await idp?.stop();
  await svc?.stop();
});

interface Started {
  url: string;
  state: string;
  nonce: string;
  verifier: string;
}

async function authorizeUrl(extra: Record<string, string> = {}): Promise<Started> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(app.config, {
    redirect_uri: callback,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url: url.href, state, nonce, verifier };
}

/** A fresh account at the provider, with the claims its ID token carries. */
function account(claims: Record<string, unknown> = {}): string {
  const sub = `fed-${++n}-${Date.now()}`;
  idp.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true, name: `Fed ${n}`, ...claims });
  return sub;
}

/** Signs in at the provider's development pages as `sub` and continues its consent. */
async function signInAtProvider(page: Page, sub: string) {
  await page.waitForURL((u) => u.href.startsWith(idp.issuer));
  await page.fill('input[name="login"]', sub);
  await page.fill('input[name="password"]', 'anything');
  await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  // The provider's own consent ("Continue") for a first sign-in of this account.
  if (page.url().startsWith(idp.issuer)) await page.click('button:text("Continue")');
}

async function allowOurConsent(page: Page) {
  await page.waitForURL(/\/consent\?interaction=/);
  await page.click('button[name="decision"][value="allow"]');
  await page.waitForURL((u) => u.href.startsWith(callback));
}

const table = () => svc.stack.runtime.config.tableName;
const read = (key: { PK: string; SK: string }) => getItem(svc.stack.runtime.db, table(), key, new Date());
const users = () => usersRepository(svc.stack.runtime.db, table(), svc.stack.runtime.now);
const identityOf = (providerId: string, sub: string) => read(keys.marker('IDENTITY', providerId, sub));

async function redeem(back: URL, started: Started) {
  return client.authorizationCodeGrant(app.config, back, {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
  });
}

describe('federated login in Chromium', () => {
  it('connection= goes to the provider; back at the callback, consent, the code, tokens; the user and identity are stored; a second login finds them', async () => {
    const sub = account({ given_name: 'Ada' });
    // TEST_AGENT: the sign-in's event records the browser's user agent (docs/events.md).
    const context = await browser.newContext({ userAgent: TEST_AGENT });
    const page = await context.newPage();
    const started = await authorizeUrl({ connection: 'acme' });
    const toProvider = page.waitForRequest((r) => r.url().startsWith(`${idp.issuer}/auth`));
    await page.goto(started.url);
    // Our request to the provider: code, PKCE S256, state, nonce, our callback (RFC 9700 §2.1.1).
    const sent = new URL((await toProvider).url());
    expect(Object.fromEntries(sent.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'login-client',
      redirect_uri: `${svc.url}/login/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(sent.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const binding = (await context.cookies(`${svc.url}/login/callback`)).find((c) => c.name === 'federation');
    expect(binding).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/login/callback' });
    expect(await read(keys.federatedLogin(secretHash(sent.searchParams.get('state')!)))).toMatchObject({
      type: 'FederatedLogin',
      provider_id: acme.id,
      tenant_id: DEFAULT_TENANT_ID,
      binding_hash: secretHash(binding!.value),
    });

    await signInAtProvider(page, sub);
    await allowOurConsent(page);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe(started.state);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    const tokens = await redeem(back, started);
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: app.clientId });
    expect(payload).toMatchObject({ nonce: started.nonce, email: `${sub}@example.com` });

    // Stored: the user with the copied claims, its identity marker, the sign-in item used up.
    const marker = await identityOf(acme.id, sub);
    expect(marker?.user_id).toBe(payload.sub);
    const user = await users().get(payload.sub!);
    expect(user).toMatchObject({ tenant_id: DEFAULT_TENANT_ID, email: `${sub}@example.com`, email_verified: true, given_name: 'Ada' });
    expect(await read(keys.federatedLogin(secretHash(sent.searchParams.get('state')!)))).toBeUndefined();
    const session = (await context.cookies(svc.url)).find((c) => c.name === 'session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await read(keys.session(secretHash(session!.value)))).toMatchObject({ user_id: user!.id, amr: ['fed'] });
    // login.succeeded rode on the login's write (docs/events.md "Recording"), for the client of the flow.
    const logins = await eventsOf(svc.stack.runtime, DEFAULT_TENANT_ID, 'login.succeeded', user!.id);
    expect(logins).toHaveLength(1);
    expectEvent(
      logins[0],
      {
        type: 'login.succeeded',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: app.clientId,
        user_id: user!.id,
        details: { method: 'federated', amr: ['fed'] },
      },
      svc.stack.runtime.config.events.retentionDays,
    );
    await context.close();

    // Another browser, JavaScript off, through the login page's link this time: the same user, no second one.
    const again = await browser.newContext({ javaScriptEnabled: false });
    const page2 = await again.newPage();
    const second = await authorizeUrl();
    await page2.goto(second.url);
    await page2.waitForURL(/\/login\?interaction=/);
    await page2.click('a:text("Sign in with acme")');
    await signInAtProvider(page2, sub);
    // The User Grant from the first login covers these scopes: no consent page this time.
    await page2.waitForURL((u) => u.href.startsWith(callback));
    const tokens2 = await redeem(new URL(page2.url()), second);
    expect(tokens2.claims()!.sub).toBe(user!.id);
    expect((await identityOf(acme.id, sub))?.user_id).toBe(user!.id);
    await again.close();
  });

  it('the login page lists the enabled providers by name, escaped, each a plain link; a disabled one is not offered', async () => {
    const jar = new CookieJar(svc.url);
    const started = await authorizeUrl();
    const toLogin = await jar.get(started.url.replace(svc.url, ''));
    expect(toLogin.status).toBe(303);
    const login = await jar.get(toLogin.location!.replace(svc.url, ''));
    expect(login.status).toBe(200);
    expect(login.text).toContain('Sign in with acme</a>');
    expect(login.text).toContain('Sign in with &lt;script&gt;alert(1)&lt;/script&gt;</a>');
    expect(login.text).not.toContain('<script>alert');
    expect(login.text).not.toContain('dormant');
    // A link with another browser's token (no csrf cookie here) starts nothing.
    const href = /href="([^"]+)">Sign in with acme/.exec(login.text)![1]!.replaceAll('&amp;', '&');
    const stranger = await new CookieJar(svc.url).get(href.replace(svc.url, ''));
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain('This sign-in option is not available');
    // The link itself, in this browser: 303 to the provider with the binding cookie.
    const go = await jar.get(href.replace(svc.url, ''));
    expect(go.status).toBe(303);
    expect(go.location!.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    expect(new URL(go.location!).searchParams.get('login_hint')).toBeNull();
    expect(new URL(go.location!).searchParams.get('prompt')).toBeNull();
    expect(go.setCookie.join('\n')).toMatch(/^federation=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/login\/callback; HttpOnly; SameSite=Lax$/m);
  });

  it('login_hint and prompt=login of our client are passed on to the provider', async () => {
    const jar = new CookieJar(svc.url);
    const started = await authorizeUrl({ connection: 'acme', login_hint: 'ada@example.com', prompt: 'login' });
    const go = await jar.get(started.url.replace(svc.url, ''));
    expect(go.status).toBe(303);
    const sent = new URL(go.location!);
    expect(sent.origin).toBe(idp.issuer);
    expect(sent.searchParams.get('login_hint')).toBe('ada@example.com');
    expect(sent.searchParams.get('prompt')).toBe('login');
  });

  it('the user cancels at the provider: our client receives access_denied with its state, nothing is stored', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const started = await authorizeUrl({ connection: 'acme' });
    const toProvider = page.waitForRequest((r) => r.url().startsWith(`${idp.issuer}/auth`));
    await page.goto(started.url);
    const state = new URL((await toProvider).url()).searchParams.get('state')!;
    await page.waitForURL((u) => u.href.startsWith(idp.issuer));
    await page.click('a:text("Cancel")');
    await page.waitForURL((u) => u.href.startsWith(callback));
    const back = new URL(page.url());
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(started.state);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('error_description')).toBe('The identity provider acme answered access_denied.');
    // The sign-in item is used up and no session was made.
    expect(await read(keys.federatedLogin(secretHash(state)))).toBeUndefined();
    expect((await context.cookies(svc.url)).find((c) => c.name === 'session')).toBeUndefined();
    await context.close();
  });
});

describe('the callback refuses what is not this browser’s sign-in', () => {
  /**
   * A federated login over HTTP (a cookie jar for a browser) up to the provider's answer, which is
   * returned, not delivered: the provider's development pages are followed and their forms posted.
   */
  async function answerOfProvider(sub: string): Promise<{ jar: CookieJar; answer: URL }> {
    const jar = new CookieJar(svc.url);
    const started = await authorizeUrl({ connection: 'acme' });
    let url = (await jar.get(started.url)).location!;
    for (let hop = 0; hop < 12; hop++) {
      if (url.startsWith(`${svc.url}/login/callback`)) return { jar, answer: new URL(url) };
      const res = await jar.get(url);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.location!, url).href;
        continue;
      }
      const action = /action="([^"]+)"/.exec(res.text)![1]!;
      const prompt = /name="prompt" value="([^"]+)"/.exec(res.text)![1]!;
      const form: Record<string, string> = prompt === 'login' ? { prompt, login: sub, password: 'anything' } : { prompt };
      url = new URL((await jar.post(new URL(action, url).href, form)).location!, url).href;
    }
    throw new Error(`the provider did not answer: last at ${url}`);
  }

  it('another browser (no binding cookie), a wrong state, a tampered code: a 400 page and nothing stored', async () => {
    const sub = account();
    const { jar, answer } = await answerOfProvider(sub);
    expect(answer.searchParams.get('iss')).toBe(idp.issuer);
    const state = answer.searchParams.get('state')!;

    const elsewhere = await new CookieJar(svc.url).get(answer.href);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.location).toBeNull();
    expect(elsewhere.text).toContain('started in another browser');

    const wrongState = new URL(answer);
    wrongState.searchParams.set('state', 'A'.repeat(43));
    expect((await jar.get(wrongState.href)).status).toBe(400);
    // Neither attempt spent the sign-in: it is still there.
    expect(await read(keys.federatedLogin(secretHash(state)))).toMatchObject({ provider_id: acme.id });

    const tampered = new URL(answer);
    tampered.searchParams.set('code', `${answer.searchParams.get('code')}x`);
    const refused = await jar.get(tampered.href);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
    expect(refused.text).toContain('could not be verified');
    expect(refused.setCookie.some((c) => c.startsWith('session='))).toBe(false);
    expect(await identityOf(acme.id, sub)).toBeUndefined();
    // The tampered try used the sign-in up: the real answer now fails too, and stores nothing.
    expect(await read(keys.federatedLogin(secretHash(state)))).toBeUndefined();
    const late = await jar.get(answer.href);
    expect(late.status).toBe(400);
    expect(await identityOf(acme.id, sub)).toBeUndefined();
  });

  it('the right browser finishes once; the answer replayed: a 400 page, one user only', async () => {
    const sub = account();
    const { jar, answer } = await answerOfProvider(sub);
    const first = await jar.get(answer.href);
    expect(first.status).toBe(303);
    expect(first.location).toMatch(/\/consent\?interaction=/);
    expect(first.setCookie.some((c) => c.startsWith('session='))).toBe(true);
    const userId = (await identityOf(acme.id, sub))?.user_id;
    expect(userId).toEqual(expect.any(String));
    const second = await jar.get(answer.href);
    expect(second.status).toBe(400);
    expect(second.location).toBeNull();
    expect((await identityOf(acme.id, sub))?.user_id).toBe(userId);
  });

  it('the same answer 10 times at once: exactly one finishes (one conditional delete), one user', async () => {
    const sub = account();
    const { jar, answer } = await answerOfProvider(sub);
    const cookie = jar.header();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => fetch(answer.href, { redirect: 'manual', headers: { cookie } }).then((r) => r.status)),
    );
    expect(answers.filter((st) => st === 303)).toHaveLength(1);
    expect(answers.filter((st) => st === 400)).toHaveLength(9);
    expect((await identityOf(acme.id, sub))?.user_id).toEqual(expect.any(String));
  });

  it('iss (RFC 9207): another issuer, or none from a provider that announces it, is a 400 page and nothing is used', async () => {
    for (const iss of ['http://127.0.0.1:1/other', undefined]) {
      const sub = account();
      const { jar, answer } = await answerOfProvider(sub);
      const mixed = new URL(answer);
      if (iss === undefined) mixed.searchParams.delete('iss');
      else mixed.searchParams.set('iss', iss);
      const res = await jar.get(mixed.href);
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('could not be verified');
      expect(await identityOf(acme.id, sub)).toBeUndefined();
    }
  });

  it('an email address another user of the tenant has: invalid_request to our client, nothing linked', async () => {
    const taken = `taken-${Date.now()}@example.com`;
    await putUser(svc.stack.runtime, { username: `owner_${Date.now()}`, email: taken });
    const sub = account({ email: taken });
    const { jar, answer } = await answerOfProvider(sub);
    const back = await jar.get(answer.href);
    expect(back.status).toBe(303);
    const location = new URL(back.location!);
    expect(location.href.startsWith(callback)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/^email:/);
    expect(back.setCookie.some((c) => c.startsWith('session='))).toBe(false);
    expect(await identityOf(acme.id, sub)).toBeUndefined();
  });

  it('a user blocked since: access_denied to our client with its state', async () => {
    const sub = account();
    const first = await answerOfProvider(sub);
    expect((await first.jar.get(first.answer.href)).status).toBe(303);
    const user = (await users().get((await identityOf(acme.id, sub))!.user_id as string))!;
    await updateUser(svc.stack.runtime, user, { blocked: true });
    const { jar, answer } = await answerOfProvider(sub);
    const back = await jar.get(answer.href);
    expect(back.status).toBe(303);
    const location = new URL(back.location!);
    expect(location.href.startsWith(callback)).toBe(true);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toEqual(expect.any(String));
    expect(back.setCookie.some((c) => c.startsWith('session='))).toBe(false);
  });

  it('no state, or a malformed, repeated or overlong value: a 400 page, never a redirect', async () => {
    const jar = new CookieJar(svc.url);
    const over = (name: string, n: number) => `?${name}=${'a'.repeat(n)}`;
    for (const query of [
      '',
      '?code=abc',
      '?state=%3Cscript%3E&error=access_denied',
      '?state=a&state=b',
      over('state', 257),
      over('code', 4097),
      over('error', 257),
      over('iss', 2049),
    ]) {
      const res = await jar.get(`/login/callback${query}`);
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).not.toContain('<script>');
    }
  });
});

describe('/authorize?connection=', () => {
  const follow = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual' });
    return { status: res.status, location: new URL(res.headers.get('location')!) };
  };

  it('a disabled or unknown provider: invalid_request naming connection, to our client with its state', async () => {
    for (const name of ['dormant', 'nobody', scripted.provider_name.toUpperCase()]) {
      const started = await authorizeUrl({ connection: name });
      const { status, location } = await follow(started.url);
      expect(status).toBe(303);
      expect(location.href.startsWith(callback)).toBe(true);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/^connection:/);
      expect(location.searchParams.get('state')).toBe(started.state);
    }
    expect(disabled.enabled).toBe(false);
  });

  it('a provider configured with a jwks_uri only (no discovery) cannot be used for sign-in: server_error to our client', async () => {
    const { runtime } = svc.stack;
    const providers = identityProvidersRepository(runtime.db, runtime.config.tableName, runtime.now);
    await providers.create(
      {
        tenant_id: DEFAULT_TENANT_ID,
        provider_name: 'keys-only',
        issuer: idp.issuer,
        jwks_uri: idp.jwksUri,
        client_id: idp.loginClient!.clientId,
        scopes: ['openid'],
        enabled: true,
      },
      '00000000-0000-0000-0000-000000000000',
    );
    const started = await authorizeUrl({ connection: 'keys-only' });
    const { status, location } = await follow(started.url);
    expect(status).toBe(303);
    expect(location.searchParams.get('error')).toBe('server_error');
    expect(location.searchParams.get('error_description')).toMatch(/^connection: .*not configured for sign-in/);
    expect(location.searchParams.get('state')).toBe(started.state);
  });
});
