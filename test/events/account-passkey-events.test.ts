import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { type AccountFixture, accountFixture } from '../support/browser/account-fixture.ts';
import { addVirtualAuthenticator } from '../support/browser/virtual-authenticator.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * `authenticator.enrolled` and `authenticator.removed` of a passkey on the account page, in
 * headless Chromium with a virtual authenticator (the WebAuthn ceremony as a person runs it): each
 * rides on the passkey's own transaction, by the user, via the account page, with the passkey's id
 * as target and neither its credential id nor its public key.
 */
let fx: AccountFixture;
let browser: Browser;

beforeAll(async () => {
  fx = await accountFixture();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fx?.stop();
});

describe('passkey events on the account page', () => {
  it('"Add a passkey" records authenticator.enrolled; "Remove" records authenticator.removed', { timeout: 90_000 }, async () => {
    const user = await fx.createLoginUser();
    const context = await browser.newContext({ userAgent: TEST_AGENT });
    const page = await context.newPage();
    await page.goto(`${fx.url}/account`);
    await page.fill('#username', user.username);
    await page.fill('#password', user.password);
    await Promise.all([page.waitForURL(`${fx.url}/account`), page.click('form:not(.passkey) button[type="submit"]')]);
    await addVirtualAuthenticator(context, page);
    await page.reload();
    await Promise.all([
      page.waitForURL(`${fx.url}/account?done=passkey-added`),
      page.getByRole('button', { name: 'Add a passkey' }).click(),
    ]);
    const [stored] = await fx.passkeys.list(user.id);
    expect(stored).toMatchObject({ user_id: user.id });
    const retention = fx.svc.stack.runtime.config.events.retentionDays;
    const enrolled = await eventsOf(fx.svc.stack.runtime, DEFAULT_TENANT_ID, 'authenticator.enrolled', user.id);
    expect(enrolled).toHaveLength(1);
    expectEvent(
      enrolled[0],
      {
        type: 'authenticator.enrolled',
        tenant_id: DEFAULT_TENANT_ID,
        user_id: user.id,
        actor: { sub: user.id },
        target: { type: 'authenticator', id: stored!.id },
        details: { kind: 'passkey', via: 'account' },
      },
      retention,
    );

    const item = page.locator('section[aria-labelledby="passkeys"] li');
    await Promise.all([page.waitForURL(`${fx.url}/account?done=passkey-removed`), item.getByRole('button', { name: 'Remove' }).click()]);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
    const removed = await eventsOf(fx.svc.stack.runtime, DEFAULT_TENANT_ID, 'authenticator.removed', user.id);
    expect(removed).toHaveLength(1);
    expect(removed[0]).toMatchObject({ target: { type: 'authenticator', id: stored!.id }, details: { kind: 'passkey', via: 'account' } });
    await expectNoSecretStored(fx.svc.stack.runtime, DEFAULT_TENANT_ID, [stored!.credential_id, stored!.public_key, user.password]);
    await context.close();
  });
});
