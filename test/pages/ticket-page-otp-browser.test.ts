import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { type TicketsFixture, ticketsFixture } from '../support/browser/tickets-fixture.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The authenticator enrolment ticket in headless Chromium (docs/users.md "Enrolment ticket"): a
 * manager makes it over the API, the user opens the link, gives its current password, reads the key
 * off the page (the test computes the code from it as an app would, shared/crypto/totp.ts), confirms
 * the code; then the `otp` grant works for the user. With JavaScript on and off, and no breach of
 * the page's Content-Security-Policy (the QR code is inline SVG).
 */
let fx: TicketsFixture;
let browser: Browser;
beforeAll(async () => {
  fx = await ticketsFixture();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fx?.svc.stop();
});

describe('the enrolment page in Chromium', () => {
  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])('%s: password, key, code → enrolled; the otp grant then signs the user in', async (_, javaScriptEnabled) => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id } });
    expect(made.status).toBe(201);
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const cspViolations: string[] = [];
    let key = '';
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    try {
      expect((await page.goto(made.body.ticket))?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Set up an authenticator app');
      expect(await page.locator('#otp-secret').count()).toBe(0); // nothing secret before the password

      await page.getByLabel('Current password').fill('not-my-password-77');
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.locator('[role=alert]').textContent()).resolves.toBe('That is not your current password.');
      expect(await page.locator('#otp-secret').count()).toBe(0);

      await page.getByLabel('Current password').fill(GOOD_PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.title()).resolves.toBe('Scan the code with your app');
      key = ((await page.locator('#otp-secret').textContent()) ?? '').replaceAll(' ', '');
      expect(key).toMatch(/^[A-Z2-7]{32}$/);
      const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
      const box = await qr.boundingBox();
      expect(box?.width).toBe(240);
      expect(await page.locator('a[href^="otpauth://totp/"]').count()).toBe(1);

      const secret = base32Decode(key)!;
      await page.getByLabel('Code from the app').fill(totp(secret, fx.clock.now()));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await expect(page.locator('h1').textContent()).resolves.toBe('Authenticator added');
      expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(true);
      expect(cspViolations).toEqual([]);
    } finally {
      await context.close();
    }
    fx.clock.advance(30_000); // the confirming code's step is spent
    const grant = await fx.otpGrant(user.username, totp(base32Decode(key)!, fx.clock.now()));
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
  });
});
