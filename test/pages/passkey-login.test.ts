import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSKEY_SCRIPT } from '#shared/browser/passkeys/passkey-script.ts';
import { logger } from '#shared/logger.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { credentialIdHash, passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { usersRepository } from '#shared/store/users/users-repository.ts';
import { CookieJar, csrfIn, hiddenIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { addVirtualAuthenticator } from '../support/browser/virtual-authenticator.ts';
import { eventsOf, expectEvent, TEST_AGENT } from '../support/events/flow-events.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { launchChromium } from '../support/service/chromium.ts';
import { updateUser } from '../support/store/user-items.ts';

/**
 * Passkeys on the hosted login page in headless Chromium with a virtual authenticator (DevTools
 * protocol `WebAuthn`): added after a password, used passwordless and as the second factor, and
 * each attack of docs/passkeys.md "Attacks we test" kept as a test. The interactions are put into
 * the table as `/authorize` stores them; the login's outcome is read back from the interaction and
 * the session (their `amr`), the user and the passkey items.
 */
let fx: PagesFixture;
let browser: Browser;
let app: Record<string, any>;

beforeAll(async () => {
  fx = await pagesFixture();
  browser = await launchChromium();
  app = await fx.createClient({ client_name: 'Passkey App' });
});
afterAll(async () => {
  await browser?.close();
  await fx?.stop();
});

const runtime = () => fx.svc.stack.runtime;
const passkeys = () => passkeysRepository(runtime().db, runtime().config.tableName, runtime().now);
const users = () => usersRepository(runtime().db, runtime().config.tableName, runtime().now);
const loginUrl = (id: string) => `${fx.url}/login?interaction=${id}`;

interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * A browser context with a platform authenticator (resident keys, user verification). The virtual
 * authenticator answers a conditional-mediation request at once (no person picks the passkey from
 * the autofill list), so unless `conditional`, the page sees no conditional mediation and only the
 * buttons start a ceremony.
 */
async function device(conditional = false): Promise<Device> {
  // TEST_AGENT: the sign-in events record the browser's user agent (docs/events.md).
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: TEST_AGENT });
  if (!conditional) await context.addInitScript({ content: 'PublicKeyCredential.isConditionalMediationAvailable = async () => false;' });
  const page = await context.newPage();
  const { cdp, authenticatorId } = await addVirtualAuthenticator(context, page);
  return { context, page, cdp, authenticatorId };
}

/** The password form, filled and sent once the page script has looked for a platform authenticator. */
async function submitPassword(page: Page, username: string, password: string) {
  await expect.poll(() => page.locator('input[name="passkey_offer"]').inputValue()).toBe('1');
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('form:not(.passkey) button[type="submit"]');
}

/** A user who signed in with the password and added a passkey on the page offered after it. */
async function userWithPasskey(d: Device) {
  const user = await fx.createLoginUser();
  const { id } = await fx.interaction(app.id);
  await d.page.goto(loginUrl(id));
  await submitPassword(d.page, user.username, user.password);
  await d.page.getByRole('button', { name: 'Add a passkey' }).click();
  await d.page.waitForURL(/\/consent\?interaction=/);
  const [passkey] = await passkeys().list(user.id);
  return { user, passkey: passkey!, interactionId: id };
}

const amrOf = (deviceType: string) => (deviceType === 'multiDevice' ? 'swk' : 'hwk');
const cookieHeader = async (context: BrowserContext) => (await context.cookies(fx.url)).map((c) => `${c.name}=${c.value}`).join('; ');

/** Runs `start` and returns the passkey form's POST instead of sending it (the page gets a 204). */
async function capturePasskeyPost(page: Page, start: () => Promise<void>): Promise<URLSearchParams> {
  let body: string | undefined;
  await page.route(/\/login\?interaction=/, async (route) => {
    const request = route.request();
    if (request.method() === 'POST' && /(^|&)passkey=/.test(request.postData() ?? '')) {
      body = request.postData()!;
      await route.fulfill({ status: 204, body: '' });
    } else {
      await route.continue();
    }
  });
  await start();
  await expect.poll(() => body, { timeout: 10_000 }).toBeDefined();
  await page.unroute(/\/login\?interaction=/);
  return new URLSearchParams(body);
}

async function post(url: string, cookie: string, form: URLSearchParams) {
  const res = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** The posted credential's JSON, changed by `edit`. */
function withCredential(form: URLSearchParams, edit: (credential: any) => void): URLSearchParams {
  const credential = JSON.parse(form.get('credential')!);
  edit(credential);
  const next = new URLSearchParams(form);
  next.set('credential', JSON.stringify(credential));
  return next;
}

describe('passkeys on the login page (Chromium, virtual authenticator)', () => {
  it('added after a password sign-in: the login completes with pwd + hwk/swk + mfa; the passkey is stored with its name', async () => {
    const d = await device();
    const { user, passkey, interactionId } = await userWithPasskey(d);
    expect(passkey).toMatchObject({ user_id: user.id, name: expect.stringMatching(/^Passkey added \d{4}-\d{2}-\d{2}$/) });
    const amr = ['pwd', amrOf(passkey.device_type), 'mfa'];
    expect((await fx.interactions.readInteraction(interactionId))?.amr).toEqual(amr);
    const session = (await d.context.cookies(fx.url)).find((c) => c.name === 'session')!;
    expect((await fx.sessions.findSession(session.value))?.amr).toEqual(amr);
    const stored = await users().get(user.id);
    expect(stored?.logins_count).toBe(1);
    // The enrolment is recorded on the add's own write, as on the account page (docs/events.md).
    const enrolled = await eventsOf(runtime(), user.tenant_id, 'authenticator.enrolled', user.id);
    expect(enrolled).toHaveLength(1);
    expectEvent(
      enrolled[0],
      {
        type: 'authenticator.enrolled',
        tenant_id: user.tenant_id,
        client_id: app.id,
        user_id: user.id,
        actor: { sub: user.id },
        target: { type: 'authenticator', id: passkey.id },
        details: { kind: 'passkey', via: 'login' },
      },
      runtime().config.events.retentionDays,
    );
    await d.context.close();
  });

  it('"Not now" completes a password-only login; without a platform authenticator nothing is offered', async () => {
    const d = await device();
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(app.id);
    await d.page.goto(loginUrl(id));
    await submitPassword(d.page, user.username, user.password);
    await d.page.getByRole('button', { name: 'Not now' }).click();
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual(['pwd']);
    expect(await passkeys().list(user.id)).toEqual([]);
    await d.context.close();

    // Over HTTP (no script, no authenticator): the password goes straight on to consent.
    const jar = new CookieJar(fx.url);
    const other = await fx.interaction(app.id);
    const form = await jar.get(`/login?interaction=${other.id}`);
    const res = await jar.post(`/login?interaction=${other.id}`, {
      csrf_token: csrfIn(form.text),
      username: user.username,
      password: user.password,
    });
    expect(res.status).toBe(303);
    expect(res.location).toContain('/consent?interaction=');
  });

  it('passwordless: "Sign in with a passkey" signs in with hwk/swk + mfa, records the counter and the login in one write', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual([amrOf(passkey.device_type), 'mfa']);
    const [after] = await passkeys().list(user.id);
    expect(after!.counter).toBeGreaterThan(passkey.counter);
    expect(after!.last_used_at).toEqual(expect.any(String));
    expect((await users().get(user.id))?.logins_count).toBe(2);
    // login.succeeded rode on that one write (docs/events.md "Recording").
    const fields = { type: 'login.succeeded', tenant_id: user.tenant_id, client_id: app.id, user_id: user.id } as const;
    const logins = await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id);
    expect(logins).toHaveLength(2);
    expectEvent(
      logins[1],
      { ...fields, details: { method: 'passkey', amr: [amrOf(passkey.device_type), 'mfa'] } },
      runtime().config.events.retentionDays,
    );
    await d.context.close();
  });

  it('conditional mediation: on a device with a passkey the login page signs in from the autofill request alone', async () => {
    const d = await device(true);
    const { passkey } = await userWithPasskey(d);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual([amrOf(passkey.device_type), 'mfa']);
    await d.context.close();
  });

  it('second factor: after the password a user with a passkey is asked for it ("Use a passkey"), amr pwd + hwk/swk + mfa', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    await submitPassword(d.page, user.username, user.password);
    await d.page.waitForSelector('h1:text("Use a passkey")');
    await d.page.screenshot({ path: 'test-results/screenshots/passkey-second-factor.png', fullPage: true });
    expect(await d.page.locator('#otp').count()).toBe(0);
    await d.page.getByRole('button', { name: 'Use a passkey' }).click();
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual(['pwd', amrOf(passkey.device_type), 'mfa']);
    // The passkey's transaction carried mfa.succeeded and login.succeeded (docs/events.md "Recording").
    const fields = { tenant_id: user.tenant_id, client_id: app.id, user_id: user.id } as const;
    const days = runtime().config.events.retentionDays;
    const mfa = await eventsOf(runtime(), user.tenant_id, 'mfa.succeeded', user.id);
    expect(mfa).toHaveLength(1);
    expectEvent(mfa[0], { type: 'mfa.succeeded', ...fields, details: { method: 'passkey' } }, days);
    const login = (await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id)).at(-1);
    expectEvent(
      login,
      { type: 'login.succeeded', ...fields, details: { method: 'password', amr: ['pwd', amrOf(passkey.device_type), 'mfa'] } },
      days,
    );
    expect(login!.occurred_at).toBe(mfa[0]!.occurred_at);
    await d.context.close();
  });

  it('a TOTP user with a passkey: the passkey alone signs in (no code asked); after a password both are offered', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    await fx.enrollOtp(user.id);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual([amrOf(passkey.device_type), 'mfa']);

    const second = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(second.id));
    await submitPassword(d.page, user.username, user.password);
    expect(await d.page.title()).toBe('Enter your code');
    expect(await d.page.locator('#otp').count()).toBe(1);
    await d.page.getByRole('button', { name: 'Use a passkey' }).click();
    await d.page.waitForURL(/\/consent\?interaction=/);
    expect((await fx.interactions.readInteraction(second.id))?.amr).toEqual(['pwd', amrOf(passkey.device_type), 'mfa']);
    await d.context.close();
  });
});

describe('attacks on the passkey sign-in', () => {
  it('a replayed credential and state: of two concurrent POSTs exactly one signs in; a later one is refused', async () => {
    const d = await device();
    const { user } = await userWithPasskey(d);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    const form = await capturePasskeyPost(d.page, () => d.page.getByRole('button', { name: 'Sign in with a passkey' }).click());
    const cookie = await cookieHeader(d.context);
    const answers = await Promise.all([post(loginUrl(id), cookie, form), post(loginUrl(id), cookie, form)]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 400]);
    const again = await post(loginUrl(id), cookie, form);
    expect(again.status).toBe(400);
    expect(again.text).toContain('The passkey could not be used to sign in.');
    expect((await users().get(user.id))?.logins_count).toBe(2);
    await d.context.close();
  });

  it('a challenge issued to one browser does not verify in another; another origin or RP ID, an expired state, another user', async () => {
    const d = await device();
    const { user } = await userWithPasskey(d);
    const victim = await fx.createLoginUser();
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    const form = await capturePasskeyPost(d.page, () => d.page.getByRole('button', { name: 'Sign in with a passkey' }).click());
    const cookie = await cookieHeader(d.context);

    // Another browser: its own csrf cookie and form token, the first browser's credential and state.
    const jar = new CookieJar(fx.url);
    const page = await jar.get(`/login?interaction=${id}`);
    const elsewhere = new URLSearchParams(form);
    elsewhere.set('csrf_token', hiddenIn(page.text.slice(page.text.indexOf('data-passkey')), 'csrf_token')!);
    expect((await jar.post(`/login?interaction=${id}`, Object.fromEntries(elsewhere))).status).toBe(400);

    // Another origin in the signed client data (and so a broken signature too).
    const otherOrigin = withCredential(form, (c) => {
      const data = JSON.parse(Buffer.from(c.response.clientDataJSON, 'base64url').toString());
      c.response.clientDataJSON = Buffer.from(JSON.stringify({ ...data, origin: 'https://evil.example' })).toString('base64url');
    });
    expect((await post(loginUrl(id), cookie, otherOrigin)).status).toBe(400);
    // Another RP ID hash in the authenticator data.
    const otherRp = withCredential(form, (c) => {
      const data = Buffer.from(c.response.authenticatorData, 'base64url');
      data[0] = data[0]! ^ 0xff;
      c.response.authenticatorData = data.toString('base64url');
    });
    expect((await post(loginUrl(id), cookie, otherRp)).status).toBe(400);
    // A state whose expiry is moved (in the past, or later): not the challenge that was signed.
    const [nonce, expiry] = form.get('state')!.split('.');
    for (const moved of [Number(expiry) - 600, Number(expiry) + 600]) {
      const edited = new URLSearchParams(form);
      edited.set('state', `${nonce}.${moved}`);
      expect((await post(loginUrl(id), cookie, edited)).status).toBe(400);
    }
    // The credential of this user presented with another user's handle: counted as the other's failed attempt.
    const otherUser = withCredential(form, (c) => {
      c.response.userHandle = Buffer.from(victim.id).toString('base64url');
    });
    expect((await post(loginUrl(id), cookie, otherUser)).status).toBe(400);
    expect((await storedItem(fx.svc, keys.user(victim.id)))?.login_failures).toBe(1);
    expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();

    // The untouched POST from its own browser still signs in: each refusal above was the edit's.
    const ok = await post(loginUrl(id), cookie, form);
    expect(ok.status).toBe(303);
    expect((await fx.interactions.readInteraction(id))?.user_id).toBe(user.id);
    await d.context.close();
  });

  it('an expired challenge (the clock moved 6 minutes) is refused', async () => {
    const d = await device();
    await userWithPasskey(d);
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    const form = await capturePasskeyPost(d.page, () => d.page.getByRole('button', { name: 'Sign in with a passkey' }).click());
    fx.clock.advance(6 * 60_000);
    try {
      const res = await post(loginUrl(id), await cookieHeader(d.context), form);
      expect(res.status).toBe(400);
      expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();
    } finally {
      fx.clock.advance(-6 * 60_000);
    }
    await d.context.close();
  });

  it('a signature counter that goes backwards is refused and nothing is written', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    await runtime().db.send(
      new UpdateCommand({
        TableName: runtime().config.tableName,
        Key: keys.userPasskey(user.id, credentialIdHash(passkey.credential_id)),
        UpdateExpression: 'SET #c = :c',
        ExpressionAttributeNames: { '#c': 'counter' },
        ExpressionAttributeValues: { ':c': 1_000_000 },
      }),
    );
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    // The service runs in this process: its logger is this module's (the level of the test run would hide a warn line).
    const warn = vi.spyOn(logger, 'warn');
    try {
      const res = d.page.waitForResponse((r) => r.request().method() === 'POST');
      await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      expect((await res).status()).toBe(400);
      // Reported: a warn line naming the user and the passkey, without key material or credential id.
      const reports = warn.mock.calls.filter(([message]) => message === 'passkey signature counter went backwards');
      expect(reports).toEqual([['passkey signature counter went backwards', { user_id: user.id, passkey_id: passkey.id }]]);
    } finally {
      warn.mockRestore();
    }
    const [after] = await passkeys().list(user.id);
    expect(after!.counter).toBe(1_000_000);
    expect((await users().get(user.id))?.logins_count).toBe(1);
    // One login.failed of its own; the failure wrote nothing else.
    const failed = await eventsOf(runtime(), user.tenant_id, 'login.failed', user.id);
    expect(failed).toHaveLength(1);
    expectEvent(
      failed[0],
      {
        type: 'login.failed',
        tenant_id: user.tenant_id,
        client_id: app.id,
        user_id: user.id,
        reason: 'wrong_passkey',
        details: { method: 'passkey' },
      },
      runtime().config.events.retentionDays,
    );
    await d.context.close();
  });

  it('a locked user gets the 429 page for a passkey too, with Retry-After; the passkey is not used', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    await runtime().db.send(
      new UpdateCommand({
        TableName: runtime().config.tableName,
        Key: keys.user(user.id),
        UpdateExpression: 'SET login_failures = :n, login_attempt_at = :at',
        ExpressionAttributeValues: { ':n': 10, ':at': fx.clock.now().getTime() },
      }),
    );
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(id));
    const res = d.page.waitForResponse((r) => r.request().method() === 'POST');
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const answer = await res;
    expect(answer.status()).toBe(429);
    expect(Number(answer.headers()['retry-after'])).toBeGreaterThan(0);
    expect(await d.page.textContent('[role="alert"]')).toContain('Too many failed attempts.');
    const [after] = await passkeys().list(user.id);
    expect(after!.counter).toBe(passkey.counter);
    expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();
    await d.context.close();
  });

  it('user verification missing where it is required (passwordless) is refused', async () => {
    const d = await device();
    const { user } = await userWithPasskey(d);
    await d.cdp.send('WebAuthn.setUserVerified', { authenticatorId: d.authenticatorId, isUserVerified: false });
    const { id } = await fx.interaction(app.id, { prompt: ['login'] });
    // The browser itself would refuse a `required` get on this authenticator: the page is made to
    // ask for 'discouraged' (its options attribute edited in transit; the script is unchanged),
    // so an assertion without the UV flag reaches the server.
    await d.page.route(/\/login\?interaction=/, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const res = await route.fetch();
      const body = (await res.text()).replace(
        '&quot;userVerification&quot;:&quot;required&quot;',
        '&quot;userVerification&quot;:&quot;discouraged&quot;',
      );
      await route.fulfill({ response: res, body });
    });
    await d.page.goto(loginUrl(id));
    const res = d.page.waitForResponse((r) => r.request().method() === 'POST');
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect((await res).status()).toBe(400);
    expect(await d.page.textContent('[role="alert"]')).toContain('The passkey could not be used to sign in.');
    expect((await users().get(user.id))?.logins_count).toBe(1);
    await d.context.close();
  });

  it('a removed passkey and a blocked user are refused', async () => {
    const d = await device();
    const { user, passkey } = await userWithPasskey(d);
    const blockedRun = await fx.interaction(app.id, { prompt: ['login'] });
    await updateUser(runtime(), (await users().get(user.id))!, { blocked: true });
    await d.page.goto(loginUrl(blockedRun.id));
    let res = d.page.waitForResponse((r) => r.request().method() === 'POST');
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect((await res).status()).toBe(400);
    await d.page.waitForSelector('[role="alert"]');
    await updateUser(runtime(), (await users().get(user.id))!, { blocked: false });

    expect(await passkeys().remove(user.id, passkey.id)).toBe(true);
    const removedRun = await fx.interaction(app.id, { prompt: ['login'] });
    await d.page.goto(loginUrl(removedRun.id));
    res = d.page.waitForResponse((r) => r.request().method() === 'POST');
    await d.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    expect((await res).status()).toBe(400);
    expect((await fx.interactions.readInteraction(removedRun.id))?.user_id).toBeUndefined();
    await d.context.close();
  });

  it('"Not now" is taken once: the same skip posted again is refused', async () => {
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(app.id);
    const jar = new CookieJar(fx.url);
    const form = await jar.get(`/login?interaction=${id}`);
    // As the page script posts it where the device has a platform authenticator.
    const offer = await jar.post(`/login?interaction=${id}`, {
      csrf_token: csrfIn(form.text),
      username: user.username,
      password: user.password,
      passkey_offer: '1',
    });
    expect(offer.status).toBe(200);
    expect(offer.text).toContain('Not now');
    const skip = {
      csrf_token: csrfIn(offer.text),
      passkey: 'skip',
      step_state: hiddenIn(offer.text, 'step_state')!,
      state: hiddenIn(offer.text, 'state')!,
    };
    const [first, second] = await Promise.all([jar.post(`/login?interaction=${id}`, skip), jar.post(`/login?interaction=${id}`, skip)]);
    expect([first.status, second.status].sort()).toEqual([303, 400]);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual(['pwd']);
    expect((await users().get(user.id))?.logins_count).toBe(1);
  });

  it('each passkey POST without its CSRF token or state is refused; nothing is recorded', async () => {
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(app.id);
    const jar = new CookieJar(fx.url);
    await jar.get(`/login?interaction=${id}`);
    for (const passkey of ['sign-in', 'second-factor', 'register', 'skip']) {
      const res = await jar.post(`/login?interaction=${id}`, {
        passkey,
        state: 'AAAAAAAAAAAAAAAAAAAAAA.9999999999',
        step_state: `${user.id}.9999999999${passkey === 'register' || passkey === 'skip' ? '.pwd' : ''}`,
        credential: '{}',
      });
      expect(res.status, passkey).toBe(400);
      expect(res.text).toContain('This form has expired.');
    }
    expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('a hostile login_hint is text: the page carries only the constant passkey script, allowed by its hash', async () => {
    const XSS = '"><script>alert(1)</script>';
    const { id } = await fx.interaction(app.id, { login_hint: XSS });
    const jar = new CookieJar(fx.url);
    const page = await jar.get(`/login?interaction=${id}`);
    expect(page.status).toBe(200);
    expect(page.text.split('<script').length - 1).toBe(1);
    expect(page.text).toContain(`<script>${PASSKEY_SCRIPT.source}</script>`);
    expect(page.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(page.headers.get('content-security-policy')).toContain(`script-src ${PASSKEY_SCRIPT.hash}`);
    expect(page.text).toContain('autocomplete="username webauthn"');
  });
});
