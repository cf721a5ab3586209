import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '#shared/crypto/password-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { credentialIdHash } from '#shared/store/users/passkeys-repository.ts';
import { type AccountFixture, accountFixture } from '../support/browser/account-fixture.ts';
import { browserLogin } from '../support/browser/browser-login.ts';
import { csrfIn } from '../support/browser/pages-fixture.ts';
import { addVirtualAuthenticator } from '../support/browser/virtual-authenticator.ts';
import { flowClient } from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The account page in headless Chromium (docs/passkeys.md "The account page"): signed out → the
 * hosted sign-in → back on /account, each action pressed as a person does (JavaScript off, except
 * the passkey ceremony, which runs on a virtual authenticator of the DevTools protocol), the stored
 * state after each, and screenshots of each state at phone width (375×812) and on a desktop, saved
 * as /tmp/account-*.png.
 */
let fx: AccountFixture;
let browser: Browser;
/** The relying party's loopback redirect URI (RFC 8252 §7.3: any port), answered by a bare server. */
let rpServer: Server;
let callback: string;

const PHONE = { width: 375, height: 812 } as const;
const DESKTOP = { width: 1280, height: 800 } as const;
const NEW_PASSWORD = 'another-Staple-battery-4471';

beforeAll(async () => {
  fx = await accountFixture();
  browser = await launchChromium();
  rpServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
  await new Promise<void>((resolve) => rpServer.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(rpServer.address() as AddressInfo).port}/cb`;
});
afterAll(async () => {
  rpServer?.close();
  await browser?.close();
  await fx?.stop();
});

/** A context at `viewport` that records CSP violations. */
async function open(o: { javaScriptEnabled: boolean; viewport?: { width: number; height: number } }) {
  const context = await browser.newContext({ javaScriptEnabled: o.javaScriptEnabled, viewport: o.viewport ?? PHONE, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  return { context, page, violations };
}

const shoot = (page: Page, name: string) => page.screenshot({ path: `/tmp/account-${name}.png`, fullPage: true });

/** Opens /account signed out and signs in with the password form; ends on /account. */
async function signInThroughAccount(page: Page, user: { username: string; password: string }, screenshot?: string) {
  await page.goto(`${fx.url}/account`);
  expect(new URL(page.url()).pathname).toBe('/login');
  await page.fill('#username', user.username);
  await page.fill('#password', user.password);
  if (screenshot) await shoot(page, screenshot);
  await Promise.all([page.waitForURL(`${fx.url}/account`), page.click('form:not(.passkey) button[type="submit"]')]);
}

const sessionOf = async (context: BrowserContext) => (await context.cookies(fx.url)).find((c) => c.name === 'session')?.value;

describe('the account page in Chromium', () => {
  it('JavaScript off, phone and desktop: sign in and back, change the password, withdraw a grant, sign out everywhere', {
    timeout: 90_000,
  }, async () => {
    const user = await fx.createLoginUser({ name: 'Grace Hopper' });
    // A grant given through the real flow: /authorize, the hosted pages, the code redeemed by openid-client.
    const rp = await flowClient(fx.svc, { is_first_party: false, redirect_uris: ['http://127.0.0.1/cb'] });
    const verifier = client.randomPKCECodeVerifier();
    const authorizeUrl = client.buildAuthorizationUrl(rp.config, {
      redirect_uri: callback,
      scope: 'openid profile offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    });
    const { context, page, violations } = await open({ javaScriptEnabled: false });
    const flow = await browserLogin(page, authorizeUrl.href, { username: user.username, password: user.password });
    expect(flow.shown).toEqual(['login', 'consent']);
    expect(flow.url.startsWith(callback)).toBe(true);
    const tokens = await client.authorizationCodeGrant(rp.config, new URL(flow.url), { pkceCodeVerifier: verifier, expectedState: 'st' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    await context.close();

    // Signed out → the hosted sign-in → back on /account.
    const phone = await open({ javaScriptEnabled: false });
    await signInThroughAccount(phone.page, user, 'phone-sign-in');
    await expect.poll(() => phone.page.locator('h1').textContent()).toBe('Your account');
    await expect.poll(() => phone.page.locator('main p').first().textContent()).toContain('Grace Hopper');
    await shoot(phone.page, 'phone-page');
    const desktop = await open({ javaScriptEnabled: false, viewport: DESKTOP });
    await signInThroughAccount(desktop.page, user);
    await shoot(desktop.page, 'desktop-page');
    // The application is listed with its name and scopes.
    const app = phone.page.locator('section[aria-labelledby="applications"] li');
    await expect.poll(() => app.count()).toBe(1);
    expect(await app.textContent()).toContain('authorize test');
    expect(await app.textContent()).toContain('offline_access');

    // A wrong current password: the message in the password section, nothing changed.
    const before = await storedItem(fx.svc, keys.user(user.id));
    await phone.page.getByLabel('Current password').fill('not-my-password-7');
    await phone.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await phone.page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
    await Promise.all([phone.page.waitForLoadState(), phone.page.getByRole('button', { name: 'Change password' }).click()]);
    await expect
      .poll(() => phone.page.locator('section[aria-labelledby="password"] [role=alert]').textContent())
      .toBe('The current password is not correct.');
    await shoot(phone.page, 'phone-password-wrong');
    expect((await storedItem(fx.svc, keys.user(user.id)))!.password_hash).toBe(before!.password_hash);

    // The right one: "Password changed", a new session here, the desktop's session and the refresh token ended.
    const oldCookie = await sessionOf(phone.context);
    await phone.page.getByLabel('Current password').fill(user.password);
    await phone.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await phone.page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
    await Promise.all([
      phone.page.waitForURL(`${fx.url}/account?done=password`),
      phone.page.getByRole('button', { name: 'Change password' }).click(),
    ]);
    expect(await phone.page.locator('[role=status]').textContent()).toBe('Password changed.');
    await shoot(phone.page, 'phone-password-changed');
    expect(await verifyPassword(NEW_PASSWORD, (await storedItem(fx.svc, keys.user(user.id)))!.password_hash)).toBe(true);
    const newCookie = await sessionOf(phone.context);
    expect(newCookie).not.toBe(oldCookie);
    expect(await fx.sessions.findSession(newCookie!)).toMatchObject({ user_id: user.id, amr: ['pwd'] });
    expect(await fx.sessions.findSession(oldCookie!)).toBeUndefined();
    await expect(client.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await desktop.page.goto(`${fx.url}/account`);
    expect(new URL(desktop.page.url()).pathname).toBe('/login');
    await desktop.context.close();

    // Withdraw: the grant is gone.
    await Promise.all([phone.page.waitForURL(`${fx.url}/account?done=withdrawn`), app.getByRole('button', { name: 'Withdraw' }).click()]);
    expect(await phone.page.locator('[role=status]').textContent()).toBe('Access withdrawn.');
    expect(await fx.grants.listConsents(user.id)).toEqual([]);
    await shoot(phone.page, 'phone-withdrawn');

    // Sign out everywhere: the signed-out page, its link back to the sign-in.
    await Promise.all([phone.page.waitForLoadState(), phone.page.getByRole('button', { name: 'Sign out everywhere' }).click()]);
    await expect.poll(() => phone.page.locator('h1').textContent()).toBe('Signed out everywhere');
    await shoot(phone.page, 'phone-signed-out');
    expect(await sessionOf(phone.context)).toBeUndefined();
    expect(await fx.sessions.findSession(newCookie!)).toBeUndefined();
    await Promise.all([
      phone.page.waitForURL(/\/login\?interaction=/),
      phone.page.getByRole('link', { name: /Sign in to your account/ }).click(),
    ]);
    expect(phone.violations).toEqual([]);
    expect(violations).toEqual([]);
    await phone.context.close();
  });

  it('a virtual authenticator: "Add a passkey" stores it; signed out, "Sign in with a passkey" comes back here; "Remove" deletes it', {
    timeout: 90_000,
  }, async () => {
    const user = await fx.createLoginUser();
    const { context, page, violations } = await open({ javaScriptEnabled: true });
    await signInThroughAccount(page, user);
    // The authenticator comes after the password sign-in, so the login page offered nothing (passkey-login.test.ts).
    const { cdp, authenticatorId } = await addVirtualAuthenticator(context, page);
    await page.reload();
    expect(page.url()).toBe(`${fx.url}/account`);
    await Promise.all([
      page.waitForURL(`${fx.url}/account?done=passkey-added`),
      page.getByRole('button', { name: 'Add a passkey' }).click(),
    ]);
    expect(await page.locator('[role=status]').textContent()).toBe('Passkey added.');
    await shoot(page, 'phone-passkey-added');
    const [stored] = await fx.passkeys.list(user.id);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(stored).toMatchObject({
      user_id: user.id,
      credential_id: Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'),
    });
    expect(await storedItem(fx.svc, keys.userPasskey(user.id, credentialIdHash(stored!.credential_id)))).toMatchObject({ id: stored!.id });
    const item = page.locator('section[aria-labelledby="passkeys"] li');
    expect(await item.textContent()).toContain(stored!.name);

    // Signed out everywhere, then back with the passkey alone (passwordless: amr hwk/swk + mfa).
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Sign out everywhere' }).click()]);
    await page.goto(`${fx.url}/account`);
    expect(new URL(page.url()).pathname).toBe('/login');
    const back = page.waitForURL(`${fx.url}/account`);
    // The login page also offers the passkey in the username field's autofill (conditional
    // mediation), which the virtual authenticator answers at once: then the button is gone before
    // it is pressed, and either way the browser comes back here.
    await page
      .getByRole('button', { name: 'Sign in with a passkey' })
      .click({ timeout: 3000 })
      .catch(() => undefined);
    await back;
    const session = await fx.sessions.findSession((await sessionOf(context))!);
    expect(session).toMatchObject({ user_id: user.id, amr: [stored!.device_type === 'multiDevice' ? 'swk' : 'hwk', 'mfa'] });
    expect((await fx.passkeys.list(user.id))[0]!.last_used_at).toEqual(expect.any(String));
    expect(await item.textContent()).toContain('last used');

    // Remove it (the sign-in is recent): the item is gone.
    await Promise.all([page.waitForURL(`${fx.url}/account?done=passkey-removed`), item.getByRole('button', { name: 'Remove' }).click()]);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
    expect(await page.locator('section[aria-labelledby="passkeys"]').textContent()).toContain('You have no passkeys.');
    expect(violations).toEqual([]);
    await context.close();
  });

  it('a registration replayed, or posted by another session of the browser, adds nothing', async () => {
    const user = await fx.createLoginUser();
    const { context, page } = await open({ javaScriptEnabled: true });
    await signInThroughAccount(page, user);
    await addVirtualAuthenticator(context, page);
    await page.reload();
    // The ceremony's POST, captured instead of sent.
    let body: string | undefined;
    await page.route(`${fx.url}/account`, async (route) => {
      if (route.request().method() === 'POST') {
        body = route.request().postData()!;
        await route.fulfill({ status: 204, body: '' });
      } else await route.continue();
    });
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => body, { timeout: 10_000 }).toBeDefined();
    const form = Object.fromEntries(new URLSearchParams(body));
    expect(form.action).toBe('add-passkey');
    const cookie = (await context.cookies(fx.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = async (cookieHeader: string, fields: Record<string, string>) => {
      const res = await fetch(`${fx.url}/account`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: res.status, location: res.headers.get('location'), text: await res.text() };
    };
    // Another session of the same browser, with its own CSRF token: the challenge was this session's.
    const other = await fx.signIn(user);
    const otherCookie = `session=${other.cookie}; csrf=${(await context.cookies(fx.url)).find((c) => c.name === 'csrf')!.value}`;
    const otherToken = csrfIn(await (await fetch(`${fx.url}/account`, { headers: { cookie: otherCookie } })).text());
    const foreign = await post(otherCookie, { ...form, csrf_token: otherToken });
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain('The passkey could not be added.');
    expect(await fx.passkeys.list(user.id)).toEqual([]);
    // The right session: added once; the same POST again is a replay.
    const first = await post(cookie, form);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${fx.url}/account?done=passkey-added`);
    const replay = await post(cookie, form);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('The passkey could not be added.');
    expect(await fx.passkeys.list(user.id)).toHaveLength(1);
    await context.close();
  });
});
