import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignupService, startSignupService } from '../support/oauth/signup.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The verification link in a real browser (docs/contract.md §7.4, §7.8; docs/users.md "Registration and
 * email"): register over HTTP, read the outbox JSON, open the link in headless Chromium, confirm,
 * and find `email_verified: true` in DynamoDB; the page works with JavaScript off and breaks no
 * rule of its own Content-Security-Policy; a second use shows the error page.
 */
let s: SignupService;
let browser: Browser;

beforeAll(async () => {
  s = await startSignupService();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await s?.svc.stop();
});

async function registerAndReadLink(email: string): Promise<{ id: string; link: string }> {
  const res = await s.register({ email });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, link: await s.linkFor(email) };
}

const emailVerified = async (id: string) => (await s.users().get(id))?.email_verified;

describe('the email-verification page in Chromium', () => {
  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])('%s: open the link, confirm, the address is verified; the link then shows the error page', async (_, javaScriptEnabled) => {
    const { id, link } = await registerAndReadLink(`browser-${javaScriptEnabled}@example.com`);
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    try {
      const opened = await page.goto(link);
      expect(opened?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Verify your email address');
      expect(await page.locator('input[type=hidden][name=csrf_token]').count()).toBe(1);
      expect(await emailVerified(id)).toBe(false); // opening the page changed nothing
      if (javaScriptEnabled) {
        // The inline stylesheet applied: its hash in style-src matches (a mismatch would leave 'none').
        expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('512px');
      }

      await page.getByRole('button', { name: 'Verify email address' }).click();
      await page.waitForURL(link); // the form posts to the page itself
      await expect(page.locator('h1').textContent()).resolves.toBe('Email address verified');
      expect(await emailVerified(id)).toBe(true);

      const again = await page.goto(link);
      expect(again?.status()).toBe(400);
      await expect(page.locator('[role=alert]').textContent()).resolves.toContain('already been used');
      expect(cspViolations).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
