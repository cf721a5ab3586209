import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usersRepository } from '../../shared/store/users-repository.ts';
import { launchChromium } from '../support/chromium.ts';
import { startTestService, type TestService } from '../support/local-service.ts';
import { managementCaller } from '../support/management-api.ts';
import { readOutbox } from '../support/outbox.ts';

/**
 * The verification link in a real browser (API.md §7.4, §7.8; docs/users.md "Registration and
 * email"): register over HTTP, read the outbox JSON, open the link in headless Chromium, confirm,
 * and find `email_verified: true` in DynamoDB; the page works with JavaScript off and breaks no
 * rule of its own Content-Security-Policy; a second use shows the error page.
 */
let svc: TestService;
let browser: Browser;
let publicClientId: string;

beforeAll(async () => {
  svc = await startTestService();
  const call = managementCaller(svc.url, await svc.managementToken());
  publicClientId = (await call('POST', '/clients', { body: { client_name: 'browser spa', is_public: true } })).body.id;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function registerAndReadLink(email: string): Promise<{ id: string; link: string }> {
  const res = await fetch(`${svc.url}/identity/v1/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: publicClientId, email, password: 'correct horse battery staple 7' }),
  });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  const config = svc.stack.runtime.config.email;
  const mail = (await readOutbox(config?.transport === 'outbox' ? config.dir : '')).find((m) => m.to === email);
  const link = /(http:\/\/\S+\/tickets\/[A-Za-z0-9_-]{43})/.exec(mail!.text)![1]!;
  return { id: body.id, link };
}

const emailVerified = async (id: string) => {
  const { db, config, now } = svc.stack.runtime;
  return (await usersRepository(db, config.tableName, now).get(id))?.email_verified;
};

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
