import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { browserLogin, PHONE, SCREENSHOT_DIR } from '../support/browser/browser-login.ts';
import { type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The device flow and the management API's tickets in headless Chromium at a phone-sized
 * viewport, with JavaScript on and off (docs/browser-flows.md "Device flow", "Tickets"):
 * openid-client plays the device (discovery, `/device_code`, polling `/token`) while the browser
 * opens `verification_uri_complete`, confirms the code, logs in and answers the consent page.
 * Screenshots go to test-results/screenshots/.
 */
let fx: PagesFixture;
let browser: Browser;
let config: client.Configuration;
/** The application a ticket's result_url points at: a loopback page (docs/contract.md §6 allows http there). */
let app: { url: string; server: Server };

beforeAll(async () => {
  fx = await pagesFixture();
  browser = await launchChromium();
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  const tv = await fx.createClient({ client_name: 'Living Room TV', is_public: true, client_metadata: { grant_types: ['device_code'] } });
  config = await client.discovery(new URL(fx.url), tv.id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
});
afterAll(async () => {
  await browser?.close();
  app?.server.close();
  await fx?.stop();
});

async function withPage<T>(javaScriptEnabled: boolean, run: (page: Page, cspViolations: string[]) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ javaScriptEnabled, viewport: PHONE });
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  try {
    return await run(page, cspViolations);
  } finally {
    await context.close();
  }
}

const shoot = (page: Page, name: string) => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
};

const clickAndWait = (page: Page, name: string) =>
  Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.getByRole('button', { name }).click()]);

describe('the device flow in Chromium', () => {
  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])(
    '%s: the device polls while the user opens the link, confirms the code, logs in and allows; the device gets tokens',
    async (label, js) => {
      const user = await fx.createLoginUser({ name: 'Dana Device' });
      const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile' });
      const polling = client.pollDeviceAuthorizationGrant(config, started);
      await withPage(js, async (page, csp) => {
        const opened = await page.goto(started.verification_uri_complete!);
        expect(opened?.status()).toBe(200);
        await expect(page.title()).resolves.toBe('Connect a device');
        await expect(page.getByLabel('Code').inputValue()).resolves.toBe(started.user_code);
        await shoot(page, `device-code-${js ? 'js' : 'nojs'}`);
        await clickAndWait(page, 'Continue');
        expect(page.url()).toMatch(/\/login\?interaction=/);
        const result = await browserLogin(page, page.url(), {
          username: user.username,
          password: user.password,
          screenshotPrefix: `device-${js ? 'js' : 'nojs'}`,
        });
        expect(result.shown).toEqual(['login', 'consent']);
        expect(result.url).toMatch(/\/device\/resume\?interaction=/);
        await expect(page.locator('h1').textContent()).resolves.toBe('Device connected');
        await shoot(page, `device-done-${js ? 'js' : 'nojs'}`);
        expect(csp, label).toEqual([]);
      });
      const tokens = await polling;
      expect(tokens.claims()).toMatchObject({ sub: user.id, name: 'Dana Device' });
    },
    60_000,
  );

  it('deny in the browser: the device hears access_denied; a wrong code first shows the error on the page', async () => {
    const user = await fx.createLoginUser();
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    await withPage(false, async (page) => {
      await page.goto(`${fx.url}/device`);
      await page.getByLabel('Code').fill('AEIO-UAEI');
      await clickAndWait(page, 'Continue');
      await expect(page.locator('[role=alert]').textContent()).resolves.toContain('That code is not valid');
      await shoot(page, 'device-wrong-code');
      await page.getByLabel('Code').fill(started.user_code.toLowerCase());
      await clickAndWait(page, 'Continue');
      const result = await browserLogin(page, page.url(), { username: user.username, password: user.password, decision: 'deny' });
      expect(result.shown).toEqual(['login', 'consent']);
      await expect(page.locator('h1').textContent()).resolves.toBe('Request denied');
    });
    await expect(client.pollDeviceAuthorizationGrant(config, started)).rejects.toMatchObject({ error: 'access_denied' });
  }, 60_000);
});

describe('tickets of the management API in Chromium', () => {
  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])(
    '%s: the password-change link sets a new password and goes to result_url; the link then shows the error page',
    async (_, js) => {
      const user = await fx.createLoginUser();
      const made = await fx.call('POST', '/tickets/password-change', {
        body: { user_id: user.id, result_url: `${app.url}/password-changed` },
      });
      expect(made.status).toBe(201);
      const before = await storedItem(fx.svc, keys.user(user.id));
      await withPage(js, async (page, csp) => {
        await page.goto(made.body.ticket);
        await expect(page.title()).resolves.toBe('Choose a new password');
        // The field's own minlength stops a short one in the browser; the server's rules (docs/contract.md §7.2) answer the rest.
        await page.getByLabel('New password').fill(user.username);
        await clickAndWait(page, 'Set password');
        await expect(page.locator('[role=alert]').textContent()).resolves.toContain('must not be the username');
        await shoot(page, `ticket-password-refused-${js ? 'js' : 'nojs'}`);
        await page.getByLabel('New password').fill('brand-New-passphrase-4412');
        await shoot(page, `ticket-password-${js ? 'js' : 'nojs'}`);
        await clickAndWait(page, 'Set password');
        expect(page.url()).toBe(`${app.url}/password-changed`);
        await expect(page.title()).resolves.toBe('app');
        const again = await page.goto(made.body.ticket);
        expect(again?.status()).toBe(400);
        await expect(page.locator('[role=alert]').textContent()).resolves.toContain('already been used');
        expect(csp).toEqual([]);
      });
      // A new hash, and every earlier token revoked (the password grant with it: test/management/tickets/tickets.test.ts).
      const stored = await storedItem(fx.svc, keys.user(user.id));
      expect(stored?.password_hash).not.toBe(before?.password_hash);
      expect(stored?.tokens_revoked_at).toEqual(expect.any(String));
    },
    60_000,
  );

  it('the email-verification link made through the API verifies the address and goes to result_url', async () => {
    const user = await fx.createUser({ email_verified: false });
    const made = await fx.call('POST', '/tickets/email-verification', { body: { user_id: user.id, result_url: `${app.url}/verified` } });
    expect(made.status).toBe(201);
    await withPage(true, async (page) => {
      await page.goto(made.body.ticket);
      await shoot(page, 'ticket-email');
      await clickAndWait(page, 'Verify email address');
      expect(page.url()).toBe(`${app.url}/verified`);
    });
    expect((await fx.call('GET', `/users/${user.id}`)).body.email_verified).toBe(true);
  }, 60_000);
});
