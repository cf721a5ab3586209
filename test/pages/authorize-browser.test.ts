import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { type FlowClient, flowClient } from '../support/oauth/authorize-flow.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The authorization-code flow in headless Chromium through the real hosted pages: /authorize →
 * /login → /consent → /authorize/resume → the relying party's callback (a loopback server, RFC
 * 8252 §7.3: registered without a port), redeemed by openid-client. Also form_post, whose
 * auto-submitting page runs under its CSP, and prompt=none with the session the login left.
 */
let svc: TestService;
let browser: Browser;
let rp: Server;
let callback: string;
let received: { method: string; url: string; body: string }[] = [];
let app: FlowClient;
const PASSWORD = 'violet-harbour-31-kettle';
const SHOTS = 'test-results/screenshots';

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
  rp = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, body });
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><p>signed in</p>');
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  app = await flowClient(svc, { is_public: true, redirect_uris: ['http://127.0.0.1/cb'] });
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  rp?.close();
  await svc?.stop();
});

const newUser = async () =>
  putUser(svc.stack.runtime, { username: `br_${Math.random().toString(36).slice(2, 10)}`, password_hash: await hashPassword(PASSWORD) });

async function logInAndConsent(page: Page, username: string, shotPrefix?: string) {
  await page.waitForURL(/\/login\?interaction=/);
  if (shotPrefix) await page.screenshot({ path: `${SHOTS}/${shotPrefix}-login.png`, fullPage: true });
  await page.fill('#username', username);
  await page.fill('#password', PASSWORD);
  await page.click('button[type="submit"]');
  await page.waitForURL(/\/consent\?interaction=/);
  if (shotPrefix) await page.screenshot({ path: `${SHOTS}/${shotPrefix}-consent.png`, fullPage: true });
  await page.click('button[name="decision"][value="allow"]');
}

describe('authorization code + PKCE in Chromium (real login and consent pages)', () => {
  it('the code reaches the callback with state and iss; openid-client redeems it; prompt=none then answers from the session', async () => {
    const user = await newUser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    received = [];
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const params = {
      redirect_uri: callback,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    await page.goto(client.buildAuthorizationUrl(app.config, params).href);
    await logInAndConsent(page, user.username!, 'authorize');
    await page.waitForURL((u) => u.href.startsWith(callback));
    const back = new URL(page.url());
    expect(back.searchParams.get('iss')).toBe(svc.url);
    const tokens = await client.authorizationCodeGrant(app.config, back, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    const idt = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: app.clientId });
    expect(idt.payload).toMatchObject({ sub: user.id, nonce, auth_time: expect.any(Number) });

    // The login left a session cookie and the consent a User Grant: prompt=none answers at once.
    const cookies = await context.cookies(svc.url);
    expect(cookies.find((c) => c.name === 'session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    const silent = client.buildAuthorizationUrl(app.config, { ...params, prompt: 'none', state: 'silent' });
    await page.goto(silent.href);
    await page.waitForURL((u) => u.href.startsWith(callback) && u.searchParams.get('state') === 'silent');
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await context.close();
  });

  it('response_mode=form_post: the page posts itself to the callback under its CSP', async () => {
    const user = await newUser();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    received = [];
    const verifier = client.randomPKCECodeVerifier();
    await page.goto(
      client.buildAuthorizationUrl(app.config, {
        redirect_uri: callback,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        response_mode: 'form_post',
        state: 'fp',
        nonce: 'n',
      }).href,
    );
    await logInAndConsent(page, user.username!);
    await page.waitForURL((u) => u.href.startsWith(callback));
    const post = received.find((r) => r.method === 'POST');
    expect(post).toMatchObject({ method: 'POST', body: expect.stringContaining('code=') });
    const form = new URLSearchParams(post!.body);
    expect(form.get('state')).toBe('fp');
    expect(form.get('iss')).toBe(svc.url);
    const request = new Request(callback, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const tokens = await client.authorizationCodeGrant(app.config, request, {
      pkceCodeVerifier: verifier,
      expectedState: 'fp',
      expectedNonce: 'n',
    });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(violations).toEqual([]);
    await context.close();
  });

  it('an unregistered redirect_uri stops on an error page (no navigation to it)', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const res = await page.goto(
      `${svc.url}/authorize?client_id=${app.clientId}&response_type=code&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
    );
    expect(res!.status()).toBe(400);
    expect(page.url().startsWith(svc.url)).toBe(true);
    await page.screenshot({ path: `${SHOTS}/authorize-error.png`, fullPage: true });
    expect(await page.textContent('[role="alert"]')).toContain('redirect_uri: is not registered for this client.');
    await context.close();
  });
});
