import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountFixture, accountFixture } from '../support/browser/account-fixture.ts';
import { csrfIn } from '../support/browser/pages-fixture.ts';

/**
 * The account page under the stage's passkey policy (docs/passkeys.md "Policy", "The account
 * page"): `off` offers no "Add a passkey" and refuses one, but still lists and removes the
 * passkeys a user holds; `required` lets the last passkey go, and the next sign-in asks for one.
 */
describe('PASSKEYS=off', () => {
  let fx: AccountFixture;
  beforeAll(async () => {
    fx = await accountFixture({ PASSKEYS: 'off' });
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('no "Add a passkey" and no script; an add is refused; a held passkey is listed and can be removed', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    expect(signed.page.text).not.toContain('Add a passkey');
    expect(signed.page.text).not.toContain('<script>');
    expect(signed.page.headers.get('content-security-policy')).not.toContain('script-src');
    const token = csrfIn(signed.page.text);
    const add = await signed.jar.post('/account', {
      csrf_token: token,
      action: 'add-passkey',
      state: 'AAAAAAAAAAAAAAAAAAAAAA.9999999999',
      credential: '{}',
    });
    expect(add.status).toBe(400);
    expect(add.text).toContain('Passkeys are not offered here.');
    expect(await fx.passkeys.list(user.id)).toEqual([]);

    const held = await fx.addPasskey(user.id, 'Old key');
    const page = await signed.jar.get('/account');
    expect(page.text).toContain('Old key');
    const removed = await signed.jar.post('/account', { csrf_token: token, action: 'remove-passkey', passkey: held.id });
    expect(removed.status).toBe(303);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
  });
});

describe('PASSKEYS=required', () => {
  let fx: AccountFixture;
  beforeAll(async () => {
    fx = await accountFixture({ PASSKEYS: 'required' });
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it('the last passkey may be removed; the next password sign-in then asks to add one', async () => {
    const user = await fx.createLoginUser();
    // A password sign-in under `required` goes through the add-a-passkey step, which this fetch
    // browser cannot pass: the session is the one the login page would make.
    const { jar } = await fx.signInWithSession(user as never);
    const only = await fx.addPasskey(user.id, 'Only key');
    const page = await jar.get('/account');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Only key');
    const removed = await jar.post('/account', { csrf_token: csrfIn(page.text), action: 'remove-passkey', passkey: only.id });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe(`${fx.url}/account?done=passkey-removed`);
    expect(await fx.passkeys.list(user.id)).toEqual([]);

    // Signed out: the sign-in through /account asks for a passkey after the password.
    jar.cookies.delete('session');
    const start = await jar.get('/account');
    const login = `${new URL(start.location!).pathname}${new URL(start.location!).search}`;
    const form = await jar.get(login);
    const asked = await jar.post(login, { csrf_token: csrfIn(form.text), username: user.username, password: user.password });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Add a passkey');
    expect(jar.cookies.get('session')).toBeUndefined();
  });
});
