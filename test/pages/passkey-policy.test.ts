import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { passkeysRepository } from '#shared/store/users/passkeys-repository.ts';
import { CookieJar, csrfIn, hiddenIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { addVirtualAuthenticator } from '../support/browser/virtual-authenticator.ts';
import { launchChromium } from '../support/service/chromium.ts';

/**
 * The stage's passkey policy on the hosted login page (docs/passkeys.md "Policy"): `off` offers
 * no passkey anywhere and refuses a passkey POST; `required` lets no login complete without a
 * passkey (TOTP alone does not meet it, "Not now" is not offered and is refused when posted).
 */
let off: PagesFixture;
let required: PagesFixture;
let browser: Browser;

beforeAll(async () => {
  [off, required] = await Promise.all([pagesFixture({ PASSKEYS: 'off' }), pagesFixture({ PASSKEYS: 'required' })]);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([off?.stop(), required?.stop()]);
});

const loginPath = (id: string) => `/login?interaction=${id}`;

/** A stored passkey (never used in a ceremony here: these tests only look at what is offered). */
const storedPasskey = (fx: PagesFixture, userId: string) =>
  passkeysRepository(fx.svc.stack.runtime.db, fx.svc.stack.runtime.config.tableName, fx.svc.stack.runtime.now).add({
    user_id: userId,
    tenant_id: DEFAULT_TENANT_ID,
    credential_id: `cred-${userId}`,
    public_key: 'pQECAyYgASFYIA',
    counter: 0,
    device_type: 'singleDevice',
    backed_up: false,
    name: 'Test passkey',
  });

async function passwordStep(fx: PagesFixture, user: { username: string; password: string }) {
  const app = await fx.createClient();
  const { id } = await fx.interaction(app.id);
  const jar = new CookieJar(fx.url);
  const form = await jar.get(loginPath(id));
  expect(form.status).toBe(200);
  const res = await jar.post(loginPath(id), { csrf_token: csrfIn(form.text), username: user.username, password: user.password });
  return { id, jar, form, res };
}

describe('policy off', () => {
  it('no passkey control, no script; a user with a passkey signs in with the password alone; a passkey POST is refused', async () => {
    const user = await off.createLoginUser();
    await storedPasskey(off, user.id);
    const { id, form, res } = await passwordStep(off, user);
    expect(form.text).not.toMatch(/passkey/i);
    expect(form.text).not.toContain('<script');
    expect(form.headers.get('content-security-policy')).not.toContain('script-src');
    expect(form.text).toContain('autocomplete="username"');
    expect(res.status).toBe(303);
    expect((await off.interactions.readInteraction(id))?.amr).toEqual(['pwd']);

    const other = await off.interaction((await off.createClient()).id);
    const fresh = new CookieJar(off.url);
    const page = await fresh.get(loginPath(other.id));
    const refused = await fresh.post(loginPath(other.id), {
      csrf_token: csrfIn(page.text),
      passkey: 'sign-in',
      state: 'AAAAAAAAAAAAAAAAAAAAAA.9999999999',
      credential: '{}',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Sign in with your username and password.');
    expect((await off.interactions.readInteraction(other.id))?.user_id).toBeUndefined();
  });
});

describe('policy required', () => {
  it('a password-only user must add a passkey: no "Not now", and a posted skip is refused', async () => {
    const user = await required.createLoginUser();
    const { id, jar, res } = await passwordStep(required, user);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Add a passkey</h1>');
    expect(res.text).toContain('data-passkey="create"');
    expect(res.text).not.toContain('Not now');
    const skipped = await jar.post(loginPath(id), {
      csrf_token: csrfIn(res.text),
      passkey: 'skip',
      step_state: hiddenIn(res.text, 'step_state')!,
      state: hiddenIn(res.text, 'state')!,
    });
    expect(skipped.status).toBe(400);
    expect(skipped.text).toContain('Add a passkey to continue.');
    expect((await required.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('TOTP alone does not meet it: after the code, the add-a-passkey page', async () => {
    const user = await required.createLoginUser();
    const code = await required.enrollOtp(user.id);
    const { id, jar, res } = await passwordStep(required, user);
    expect(res.text).toContain('<label for="otp">');
    const next = await jar.post(loginPath(id), { csrf_token: csrfIn(res.text), otp_state: hiddenIn(res.text, 'otp_state')!, otp: code() });
    expect(next.status).toBe(200);
    expect(next.text).toContain('<h1>Add a passkey</h1>');
    expect(hiddenIn(next.text, 'step_state')).toMatch(/\.otp$/);
    expect((await required.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('a user with a passkey and TOTP is asked for the passkey only; a posted code is refused', async () => {
    const user = await required.createLoginUser();
    const code = await required.enrollOtp(user.id);
    await storedPasskey(required, user.id);
    const { id, jar, res } = await passwordStep(required, user);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Use a passkey</h1>');
    expect(res.text).not.toContain('name="otp"');
    const expiry = hiddenIn(res.text, 'step_state')!.split('.')[1]!;
    // The code step's token is not on the page; a code posted anyway (with a forged state) is refused.
    const posted = await jar.post(loginPath(id), { csrf_token: csrfIn(res.text), otp_state: `${user.id}.${expiry}`, otp: code() });
    expect(posted.status).toBe(400);
    expect((await required.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('in Chromium: the passkey added on the required page completes the login (pwd + hwk/swk + mfa)', async () => {
    const user = await required.createLoginUser();
    const app = await required.createClient();
    const { id } = await required.interaction(app.id);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addInitScript({ content: 'PublicKeyCredential.isConditionalMediationAvailable = async () => false;' });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    await page.goto(`${required.url}${loginPath(id)}`);
    await page.fill('#username', user.username);
    await page.fill('#password', user.password);
    await page.click('form:not(.passkey) button[type="submit"]');
    await page.waitForSelector('h1:text("Add a passkey")');
    expect(await page.getByRole('button', { name: 'Not now' }).count()).toBe(0);
    await page.screenshot({ path: 'test-results/screenshots/passkey-required-add.png', fullPage: true });
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/\/consent\?interaction=/);
    const [passkey] = await passkeysRepository(
      required.svc.stack.runtime.db,
      required.svc.stack.runtime.config.tableName,
      required.svc.stack.runtime.now,
    ).list(user.id);
    expect((await required.interactions.readInteraction(id))?.amr).toEqual([
      'pwd',
      passkey!.device_type === 'multiDevice' ? 'swk' : 'hwk',
      'mfa',
    ]);
    await context.close();
  });
});
