import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { addVirtualAuthenticator } from '../support/browser/virtual-authenticator.ts';
import { type FlowClient, flowClient } from '../support/oauth/authorize-flow.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * Passkeys end to end through `/authorize` in Chromium with a virtual authenticator, redeemed by
 * openid-client and verified with jose against our JWKS: the ID token's `amr` (and `acr` when
 * asked for) says how the person signed in (docs/passkeys.md "amr and acr").
 */
let svc: TestService;
let browser: Browser;
let rp: Server;
let callback: string;
let app: FlowClient;
const PASSWORD = 'amber-lantern-42-willow';

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
  rp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title>'));
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  app = await flowClient(svc, { is_public: true, redirect_uris: ['http://127.0.0.1/cb'] });
});
afterAll(async () => {
  await browser?.close();
  rp?.close();
  await svc?.stop();
});

/** Starts an authorization request in the page; returns what redeeming its code needs. */
async function authorize(page: Page, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(app.config, {
    redirect_uri: callback,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  await page.goto(url.href);
  return { verifier, state, nonce };
}

/** Consent when asked, then the callback's code redeemed and the ID token verified. */
async function finish(page: Page, flow: { verifier: string; state: string; nonce: string }) {
  await page.waitForURL((u) => u.href.startsWith(callback) || u.pathname === '/consent');
  if (new URL(page.url()).pathname === '/consent') await page.click('button[name="decision"][value="allow"]');
  await page.waitForURL((u) => u.href.startsWith(callback));
  const tokens = await client.authorizationCodeGrant(app.config, new URL(page.url()), {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });
  const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
  return (await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: app.clientId })).payload;
}

describe('passkeys through /authorize, checked in the ID token', () => {
  it('added after the password (amr pwd + key + mfa), then passwordless with acr_values=phr (amr key + mfa, acr phr)', async () => {
    const user = await putUser(svc.stack.runtime, {
      username: `pk_${Math.random().toString(36).slice(2, 10)}`,
      password_hash: await hashPassword(PASSWORD),
    });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    // No person picks from the autofill list here: only the buttons start a ceremony (passkey-login.test.ts).
    await context.addInitScript({ content: 'PublicKeyCredential.isConditionalMediationAvailable = async () => false;' });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);

    const first = await authorize(page);
    await page.waitForURL(/\/login\?interaction=/);
    await expect.poll(() => page.locator('input[name="passkey_offer"]').inputValue()).toBe('1');
    await page.fill('#username', user.username!);
    await page.fill('#password', PASSWORD);
    await page.click('form:not(.passkey) button[type="submit"]');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const registered = await finish(page, first);
    const [passkey] = await passkeysRepository(svc.stack.runtime.db, svc.stack.runtime.config.tableName, svc.stack.runtime.now).list(
      user.id,
    );
    const key = passkey!.device_type === 'multiDevice' ? 'swk' : 'hwk';
    expect(registered).toMatchObject({ sub: user.id, amr: ['pwd', key, 'mfa'] });
    expect(registered.acr).toBeUndefined();

    // The password session does not meet phr: the login page is shown, and the passkey signs in.
    const second = await authorize(page, { acr_values: 'phr', prompt: 'login' });
    await page.waitForURL(/\/login\?interaction=/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const passwordless = await finish(page, second);
    expect(passwordless).toMatchObject({ sub: user.id, amr: [key, 'mfa'], acr: 'phr' });
    expect(passwordless.auth_time).toBeGreaterThanOrEqual(registered.auth_time as number);
    await context.close();
  });
});
