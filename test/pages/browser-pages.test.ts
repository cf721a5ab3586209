import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLogin, PHONE, SCREENSHOT_DIR } from '../support/browser/browser-login.ts';
import { type PagesFixture, pagesFixture, TEST_RETURN_TO } from '../support/browser/pages-fixture.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The login, OTP, consent and logout pages in headless Chromium at a phone-sized viewport, with
 * JavaScript on and off (docs/contract.md §7.4: every page works without it), through the helper the
 * /authorize and /device tests use (test/support/browser/browser-login.ts). Screenshots of every page go to
 * test-results/screenshots/. No page breaks its own Content-Security-Policy.
 */
let fx: PagesFixture;
let browser: Browser;
let app: Record<string, any>;

beforeAll(async () => {
  fx = await pagesFixture();
  browser = await launchChromium();
  app = await fx.createClient({
    client_name: 'Photo Printer',
    client_metadata: { urls: { post_logout_redirect_uris: ['https://app.example.com/bye'] } },
  });
});
afterAll(async () => {
  await browser?.close();
  await fx?.stop();
});

/** A phone-sized page that records CSP violations reported on its console. */
async function phonePage(javaScriptEnabled: boolean): Promise<{ page: Page; violations: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ javaScriptEnabled, viewport: PHONE, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  return { page, violations, close: () => context.close() };
}

describe('hosted pages in Chromium', () => {
  it.each([
    ['js', true],
    ['nojs', false],
  ])(
    'login and consent (%s): the form, the consent, then return_to; the decision and grant are stored',
    async (name, javaScriptEnabled) => {
      const api = await fx.createResource(['read:photos', 'write:photos'], { resource_name: 'Photos API' });
      const user = await fx.createLoginUser();
      const { id } = await fx.interaction(app.id, {
        scopes: ['openid', 'profile', 'email', 'read:photos', 'write:photos'],
        resource_id: api.id,
        login_hint: user.username,
      });
      const { page, violations, close } = await phonePage(javaScriptEnabled);
      try {
        const result = await browserLogin(page, `${fx.url}/login?interaction=${id}`, {
          username: user.username,
          password: user.password,
          screenshotPrefix: `pages-${name}`,
        });
        expect(result.shown).toEqual(['login', 'consent']);
        expect(result.url).toBe(`${fx.url}${TEST_RETURN_TO}`);
        expect(await fx.interactions.readInteraction(id)).toMatchObject({ user_id: user.id, decision: 'allow' });
        expect((await fx.grants.findConsent(user.id, app.id, api.id))?.scopes).toContain('write:photos');
        expect(violations).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it('labels, pre-fill and the stylesheet: every input is reachable by its label; the page fits a phone', async () => {
    const { id } = await fx.interaction(app.id, { login_hint: 'ada@example.com' });
    const { page, violations, close } = await phonePage(true);
    try {
      await page.goto(`${fx.url}/login?interaction=${id}`);
      await expect(page.getByLabel('Username or email').inputValue()).resolves.toBe('ada@example.com');
      expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
      // The inline stylesheet applied (its hash is in style-src).
      expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('512px');
      // Nothing wider than the viewport: no sideways scrolling on a phone.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(violations).toEqual([]);
    } finally {
      await close();
    }
  });

  it('the OTP step, a wrong password message and the deny answer', async () => {
    const user = await fx.createLoginUser();
    const code = await fx.enrollOtp(user.id);
    const { page, violations, close } = await phonePage(false);
    try {
      const wrong = await fx.interaction(app.id);
      const failed = await browserLogin(page, `${fx.url}/login?interaction=${wrong.id}`, {
        username: user.username,
        password: 'not-the-password-1',
      });
      expect(failed.shown).toEqual(['login']);
      await expect(page.locator('[role=alert]').textContent()).resolves.toBe('The username or password is not correct.');
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'pages-login-error.png'), fullPage: true });

      const { id } = await fx.interaction(app.id, { scopes: ['openid', 'email'] });
      const result = await browserLogin(page, `${fx.url}/login?interaction=${id}`, {
        username: user.username,
        password: user.password,
        otp: () => code(),
        decision: 'deny',
        screenshotPrefix: 'pages-otp',
      });
      expect(result.shown).toEqual(['login', 'otp', 'consent']);
      expect(await fx.interactions.readInteraction(id)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], decision: 'deny' });
      expect(violations).toEqual([]);
    } finally {
      await close();
    }
  });

  it('logout: the confirmation page, then signed out; an unregistered post_logout_redirect_uri shows the error page', async () => {
    const user = await fx.createLoginUser();
    const { page, violations, close } = await phonePage(false);
    try {
      const { id } = await fx.interaction(app.id);
      await browserLogin(page, `${fx.url}/login?interaction=${id}`, { username: user.username, password: user.password });
      const bad = await page.goto(
        `${fx.url}/logout?client_id=${app.id}&post_logout_redirect_uri=${encodeURIComponent('https://evil.example.com/')}`,
      );
      expect(bad?.status()).toBe(400);
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'pages-logout-error.png'), fullPage: true });

      await page.goto(`${fx.url}/logout`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Sign out?');
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'pages-logout-confirm.png'), fullPage: true });
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign out' }).click()]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Signed out');
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'pages-logout-done.png'), fullPage: true });
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'session')).toBeUndefined();
      expect(violations).toEqual([]);
    } finally {
      await close();
    }
  });
});
