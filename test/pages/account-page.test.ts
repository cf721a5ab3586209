import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '#shared/crypto/password-hash.ts';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { tenantsRepository } from '#shared/store/tenants/tenants-repository.ts';
import { type AccountFixture, accountFixture } from '../support/browser/account-fixture.ts';
import { CookieJar, csrfIn, hiddenIn } from '../support/browser/pages-fixture.ts';
import { seedConsent } from '../support/browser/seed-session.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * The account page over HTTP (docs/passkeys.md "The account page"): the way through the hosted
 * sign-in and back, every action with its stored state, CSRF on every action, the recent sign-in
 * the passkey actions need, and the races of one-time things.
 */
let fx: AccountFixture;
const NEW_PASSWORD = 'another-Staple-battery-4471';

beforeAll(async () => {
  fx = await accountFixture();
});
afterAll(async () => {
  await fx?.stop();
});

const userItem = (id: string) => storedItem(fx.svc, keys.user(id));

/** A POST of the page's form for `action`, with the page's own CSRF token unless `fields` says otherwise. */
async function act(signed: { jar: CookieJar }, action: string, fields: Record<string, string> = {}) {
  const page = await signed.jar.get('/account');
  expect(page.status).toBe(200);
  return signed.jar.post('/account', { csrf_token: csrfIn(page.text), action, ...fields });
}

/** Makes the session's sign-in `ageSeconds` old (its stored `auth_time`). */
async function ageSession(cookie: string, ageSeconds: number) {
  const item = await fx.sessionItem(cookie);
  const { runtime } = fx.svc.stack;
  await runtime.db.send(
    new UpdateCommand({
      TableName: runtime.config.tableName,
      Key: { PK: item!.PK, SK: item!.SK },
      UpdateExpression: 'SET auth_time = :t',
      ExpressionAttributeValues: { ':t': Math.floor(runtime.now().getTime() / 1000) - ageSeconds },
    }),
  );
}

describe('/account: signed out', () => {
  it('sends the browser through the hosted sign-in and back: an account interaction, no consent, used up on the way', async () => {
    const user = await fx.createLoginUser({ name: 'Ada Lovelace' });
    const jar = new CookieJar(fx.url);
    const start = await jar.get('/account');
    expect(start.status).toBe(303);
    expect(start.headers.get('cache-control')).toBe('no-store');
    const id = new URL(start.location!).searchParams.get('interaction')!;
    expect(start.location).toBe(`${fx.url}/login?interaction=${id}`);
    expect(await fx.interactions.readInteraction(id)).toMatchObject({
      kind: 'account',
      tenant_id: DEFAULT_TENANT_ID,
      client_id: '',
      scopes: [],
      prompt: [],
      return_to: '/account',
    });
    // The login page of an account sign-in names no application.
    const form = await jar.get(`/login?interaction=${id}`);
    expect(form.status).toBe(200);
    expect(form.text).not.toContain('to continue to');

    const signed = await fx.signIn(user, jar);
    expect(await fx.interactions.readInteraction(signed.interaction)).toBeUndefined();
    expect(signed.page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(signed.page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(signed.page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(signed.page.headers.get('cache-control')).toBe('no-store');
    expect(signed.page.text).toContain('Signed in as <strong>Ada Lovelace</strong>');
    expect(signed.page.text).toContain(user.email);
    expect(signed.page.text).toContain('You have no passkeys.');
    // Every input has its label.
    for (const name of ['current_password', 'new_password', 'confirm_password']) {
      expect(signed.page.text).toContain(`<label for="${name}">`);
      expect(signed.page.text).toContain(`<input id="${name}" name="${name}"`);
    }
    // The consent page of the interaction is not there any more (used once).
    expect((await jar.get(`/consent?interaction=${signed.interaction}`)).status).toBe(400);
  });

  it('`tenant` picks the tenant of the sign-in when it names one; an unknown one is the default tenant; a huge one is a 400', async () => {
    // The stage is single-tenant (no Tenants API): the tenant is put as the Tenants API stores one.
    const { db, config, now } = fx.svc.stack.runtime;
    const created = { body: await tenantsRepository(db, config.tableName, now).create({ tenant_name: `account-${Date.now()}` }, 'test') };
    const jar = new CookieJar(fx.url);
    const interactionOf = async (path: string) => {
      const res = await jar.get(path);
      expect(res.status).toBe(303);
      return fx.interactions.readInteraction(new URL(res.location!).searchParams.get('interaction')!);
    };
    expect(await interactionOf(`/account?tenant=${created.body.id}`)).toMatchObject({ tenant_id: created.body.id, kind: 'account' });
    expect(await interactionOf('/account?tenant=019b0000-0000-7000-8000-00000000dead')).toMatchObject({ tenant_id: DEFAULT_TENANT_ID });
    expect(await interactionOf(`/account?tenant=${encodeURIComponent('x\u0000<script>')}`)).toMatchObject({ tenant_id: DEFAULT_TENANT_ID });
    const huge = await jar.get(`/account?tenant=${'a'.repeat(5000)}`);
    expect(huge.status).toBe(400);
    expect(huge.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('a POST without a session changes nothing and goes to the sign-in', async () => {
    const jar = new CookieJar(fx.url);
    const res = await jar.post('/account', { action: 'sign-out-everywhere' });
    expect(res.status).toBe(303);
    expect(new URL(res.location!).pathname).toBe('/login');
  });
});

describe('/account: change password', () => {
  it('right current password: new hash, every earlier token and session ended, this browser signed in again with a fresh session', async () => {
    const user = await fx.createLoginUser();
    const refreshToken = await fx.refreshToken(user);
    const signed = await fx.signIn(user);
    const other = await fx.signIn(user);
    const before = await userItem(user.id);

    const res = await act(signed, 'change-password', {
      current_password: user.password,
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}/account?done=password`);
    expect(res.setCookie).toHaveLength(1);
    expect(res.setCookie[0]).toMatch(/^session=[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    const after = await userItem(user.id);
    expect(after!.password_hash).not.toBe(before!.password_hash);
    expect(await verifyPassword(NEW_PASSWORD, after!.password_hash)).toBe(true);
    expect(after!.tokens_revoked_at).toEqual(expect.any(String));
    // Every earlier token ends: the refresh token from before is refused at /token.
    expect(await fx.refresh(refreshToken)).toBeUndefined();
    // The old sessions (this browser's and another's) open nothing; the new one is the pwd login of now.
    expect(await fx.sessions.findSession(signed.cookie)).toBeUndefined();
    expect(await fx.sessions.findSession(other.cookie)).toBeUndefined();
    const fresh = signed.jar.cookies.get('session')!;
    expect(fresh).not.toBe(signed.cookie);
    expect(await fx.sessions.findSession(fresh)).toMatchObject({ user_id: user.id, amr: ['pwd'] });
    const page = await signed.jar.get(res.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<p role="status"><strong>Password changed.</strong></p>');
    expect((await other.jar.get('/account')).status).toBe(303);
  });

  it('a wrong current password: 400 in the form, counted towards the lockout, nothing changed; locked: 429 with Retry-After', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    const before = await userItem(user.id);
    const wrong = await act(signed, 'change-password', {
      current_password: 'not-the-password-1',
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('<p class="error" role="alert">The current password is not correct.</p>');
    const after = await userItem(user.id);
    expect(after!.password_hash).toBe(before!.password_hash);
    expect(after!.login_failures).toBe(1);
    expect(await fx.sessions.findSession(signed.cookie)).toMatchObject({ user_id: user.id });

    const { lockoutFailures } = fx.svc.stack.runtime.config.login;
    for (let i = 1; i < lockoutFailures; i++) {
      await act(signed, 'change-password', {
        current_password: `wrong-${i}-password`,
        new_password: NEW_PASSWORD,
        confirm_password: NEW_PASSWORD,
      });
    }
    // Locked: even the right password is refused unchecked.
    const locked = await act(signed, 'change-password', {
      current_password: user.password,
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.text).toContain('Too many failed attempts.');
    expect((await userItem(user.id))!.password_hash).toBe(before!.password_hash);
  });

  it('the new password’s rules, a mismatch, missing or oversized fields: 400 in the form, nothing counted or changed', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    const before = await userItem(user.id);
    const cases: [Record<string, string>, string][] = [
      [
        { current_password: user.password, new_password: 'short', confirm_password: 'short' },
        'The new password must be at least 8 characters long.',
      ],
      [{ current_password: user.password, new_password: 'password123', confirm_password: 'password123' }, 'The new password is too common'],
      [{ current_password: user.password, new_password: user.username, confirm_password: user.username }, 'must not be the username'],
      [
        { current_password: user.password, new_password: NEW_PASSWORD, confirm_password: `${NEW_PASSWORD}x` },
        'The two new passwords are not the same.',
      ],
      [{ new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 'Enter your current password and the new one twice.'],
      [{ current_password: 'x'.repeat(5000), new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD }, 'Enter your current password'],
      [{ current_password: user.password, new_password: 'é'.repeat(200), confirm_password: 'é'.repeat(200) }, 'at most 128 characters'],
    ];
    for (const [fields, message] of cases) {
      const res = await act(signed, 'change-password', fields);
      expect(res.status, message).toBe(400);
      expect(res.text).toContain(message);
    }
    const after = await userItem(user.id);
    expect(after!.password_hash).toBe(before!.password_hash);
    expect(after!.login_failures ?? 0).toBe(0);
    expect(after!.tokens_revoked_at).toBeUndefined();
  });
});

describe('/account: applications', () => {
  it('lists the grants with the client’s name; Withdraw deletes the grant and ends its refresh tokens', async () => {
    const user = await fx.createLoginUser();
    const refreshToken = await fx.refreshToken(user);
    const grant = await seedConsent(fx.svc.stack.runtime, user as never, fx.rp.clientId, ['openid', 'offline_access']);
    const keep = await fx.createClient({ client_name: 'Kept <b>app</b>' });
    await seedConsent(fx.svc.stack.runtime, user as never, keep.id, ['openid']);
    const signed = await fx.signIn(user);
    expect(signed.page.text).toContain('login password refresh_token');
    expect(signed.page.text).toContain('Access: offline_access, openid');
    expect(signed.page.text).toContain('Kept &lt;b&gt;app&lt;/b&gt;');
    const next = await fx.refresh(refreshToken);
    expect(next).toEqual(expect.any(String));

    const res = await act(signed, 'withdraw-grant', { grant: grant.id });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}/account?done=withdrawn`);
    expect(await fx.grants.findConsent(user.id, fx.rp.clientId, null)).toBeUndefined();
    expect(await fx.grants.findConsent(user.id, keep.id, null)).toMatchObject({ scopes: ['openid'] });
    expect(await fx.refresh(next!)).toBeUndefined();
    const page = await signed.jar.get(res.location!);
    expect(page.text).toContain('Access withdrawn.');
    expect(page.text).not.toContain('login password refresh_token');
  });

  it('another user’s grant id, an unknown or malformed one: 400 in the section, nothing withdrawn', async () => {
    const user = await fx.createLoginUser();
    const victim = await fx.createLoginUser();
    const theirs = await seedConsent(fx.svc.stack.runtime, victim as never, fx.rp.clientId, ['openid']);
    const signed = await fx.signIn(user);
    for (const grant of [theirs.id, '019b0000-0000-7000-8000-00000000dead', 'x'.repeat(3000), '']) {
      const res = await act(signed, 'withdraw-grant', { grant });
      expect(res.status).toBe(400);
      expect(res.text).toContain('That application has no access to withdraw any more.');
    }
    expect(await fx.grants.findConsent(victim.id, fx.rp.clientId, null)).toMatchObject({ id: theirs.id });
  });

  it('concurrent withdrawals of one grant: exactly one 303, the others a 400', async () => {
    const user = await fx.createLoginUser();
    const grant = await seedConsent(fx.svc.stack.runtime, user as never, fx.rp.clientId, ['openid']);
    const signed = await fx.signIn(user);
    const token = csrfIn(signed.page.text);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => signed.jar.post('/account', { csrf_token: token, action: 'withdraw-grant', grant: grant.id })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([303, 400, 400, 400, 400, 400]);
    expect(await fx.grants.findConsent(user.id, fx.rp.clientId, null)).toBeUndefined();
  });
});

describe('/account: passkeys', () => {
  it('lists the passkeys (a hostile name escaped); Remove deletes the item after a recent sign-in', async () => {
    const user = await fx.createLoginUser();
    // Added after the sign-in: a user with a passkey is asked for it after the password (docs/passkeys.md).
    const signed = await fx.signIn(user);
    const hostile = await fx.addPasskey(user.id, '<script>alert(1)</script>');
    const kept = await fx.addPasskey(user.id, 'Laptop "work"');
    signed.page = await signed.jar.get('/account');
    expect(signed.page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(signed.page.text).not.toContain('<script>alert');
    // The one script is the ceremony's constant (allowed by its hash).
    expect(signed.page.text.match(/<script>/g)).toHaveLength(1);
    expect(signed.page.text).toContain('Laptop &quot;work&quot;');
    expect(signed.page.text).toContain('never used');

    const res = await act(signed, 'remove-passkey', { passkey: hostile.id });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}/account?done=passkey-removed`);
    expect((await fx.passkeys.list(user.id)).map((p) => p.id)).toEqual([kept.id]);
    expect((await userItem(user.id))!.passkeys_count).toBe(1);
    const page = await signed.jar.get(res.location!);
    expect(page.text).toContain('Passkey removed.');
  });

  it('`done` shows only its fixed notices: an unknown value, a prototype member or markup shows none', async () => {
    const signed = await fx.signIn(await fx.createLoginUser());
    for (const done of ['constructor', '__proto__', 'toString', '<script>alert(1)</script>', 'nothing']) {
      const page = await signed.jar.get(`/account?done=${encodeURIComponent(done)}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('role="status"');
      expect(page.text).not.toContain('alert(1)');
    }
    const known = await signed.jar.get('/account?done=withdrawn');
    expect(known.text).toContain('role="status"');
  });

  it('a sign-in older than 10 minutes: Remove sends the browser to sign in again (prompt=login) and removes nothing', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    const passkey = await fx.addPasskey(user.id, 'Phone');
    await ageSession(signed.cookie, 601);
    const res = await act(signed, 'remove-passkey', { passkey: passkey.id });
    expect(res.status).toBe(303);
    const id = new URL(res.location!).searchParams.get('interaction')!;
    expect(await fx.interactions.readInteraction(id)).toMatchObject({ kind: 'account', prompt: ['login'], login_hint: user.username });
    expect(await fx.passkeys.list(user.id)).toHaveLength(1);
    // The session still serves the page, but the login page asks for the password again (the
    // passkey after it: account-browser.test.ts signs in again with a virtual authenticator).
    const form = await signed.jar.get(res.location!);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="password"');
    expect((await signed.jar.get('/account')).status).toBe(200);
    // A sign-in of now (as the login records it) may remove it.
    await ageSession(signed.cookie, 0);
    const removed = await act(signed, 'remove-passkey', { passkey: passkey.id });
    expect(removed.status).toBe(303);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
  });

  it('Add a passkey: the ceremony on the page of a recent sign-in; an old sign-in gets a plain button that signs in again first', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    // The ceremony's form: its options bound to this page (the user's handle, our RP ID), the script allowed by its hash.
    const options = JSON.parse(
      /data-passkey="create" data-options="([^"]+)"/.exec(signed.page.text)![1]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&'),
    );
    expect(options).toMatchObject({ rp: { id: 'localhost' }, user: { id: Buffer.from(user.id).toString('base64url') } });
    expect(signed.page.text).toContain('<button type="button" data-passkey-start hidden>Add a passkey</button>');
    expect(signed.page.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    // A credential that is not one: refused in the section, nothing stored.
    const junk = await act(signed, 'add-passkey', { state: 'AAAAAAAAAAAAAAAAAAAAAA.9999999999', credential: '{"id":"x"}' });
    expect(junk.status).toBe(400);
    expect(junk.text).toContain('The passkey could not be added. Try again.');
    expect(await fx.passkeys.list(user.id)).toEqual([]);

    await ageSession(signed.cookie, 601);
    const old = await signed.jar.get('/account');
    expect(old.text).not.toContain('data-passkey="create"');
    expect(old.text).toContain('<input type="hidden" name="action" value="add-passkey">\n<button type="submit">Add a passkey</button>');
    expect(old.headers.get('content-security-policy')).not.toContain('script-src');
    const res = await signed.jar.post('/account', { csrf_token: csrfIn(old.text), action: 'add-passkey' });
    expect(res.status).toBe(303);
    const id = new URL(res.location!).searchParams.get('interaction')!;
    expect(await fx.interactions.readInteraction(id)).toMatchObject({ kind: 'account', prompt: ['login'] });
    const form = await signed.jar.get(res.location!);
    const again = await signed.jar.post(`/login?interaction=${id}`, {
      csrf_token: csrfIn(form.text),
      username: user.username,
      password: user.password,
    });
    expect(again.status).toBe(303);
    expect((await signed.jar.get(again.location!)).location).toBe(`${fx.url}/account`);
    const fresh = await signed.jar.get('/account');
    expect(fresh.text).toContain('data-passkey="create"');
    expect(await fx.passkeys.list(user.id)).toEqual([]);
  });

  it('another user’s passkey or a malformed id: 400, nothing removed; concurrent removals: one 303', async () => {
    const user = await fx.createLoginUser();
    const victim = await fx.createLoginUser();
    const theirs = await fx.addPasskey(victim.id, 'Theirs');
    const signed = await fx.signIn(user);
    const mine = await fx.addPasskey(user.id, 'Mine');
    for (const passkey of [theirs.id, 'not-an-id', '']) {
      const res = await act(signed, 'remove-passkey', { passkey });
      expect(res.status).toBe(400);
    }
    expect(await fx.passkeys.list(victim.id)).toHaveLength(1);
    const token = csrfIn(signed.page.text);
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => signed.jar.post('/account', { csrf_token: token, action: 'remove-passkey', passkey: mine.id })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([303, 400, 400, 400]);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
    expect((await userItem(user.id))!.passkeys_count).toBe(0);
  });
});

describe('/account: sign out everywhere', () => {
  it('ends every session of the user, clears the cookie, and links back to /account', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    const other = await fx.signIn(user);
    const res = await act(signed, 'sign-out-everywhere');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/account">');
    expect(res.setCookie).toEqual(['session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    for (const cookie of [signed.cookie, other.cookie]) {
      expect((await fx.sessionItem(cookie))!.ended_at).toEqual(expect.any(String));
    }
    // Another browser's session cookie no longer serves the page.
    const elsewhere = await other.jar.get('/account');
    expect(elsewhere.status).toBe(303);
    expect(new URL(elsewhere.location!).pathname).toBe('/login');
  });
});

describe('/account: CSRF', () => {
  const ACTIONS: [string, (ctx: { user: Record<string, any>; grant: string; passkey: string }) => Record<string, string>][] = [
    ['change-password', ({ user }) => ({ current_password: user.password, new_password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })],
    ['remove-passkey', ({ passkey }) => ({ passkey })],
    ['withdraw-grant', ({ grant }) => ({ grant })],
    ['sign-out-everywhere', () => ({})],
    ['add-passkey', () => ({ state: 'AAAAAAAAAAAAAAAAAAAAAA.9999999999', credential: '{}' })],
  ];

  it.each(ACTIONS)(
    '%s: no token, another browser’s token, another session’s token, a fresh browser: 400, nothing changed',
    async (action, fields) => {
      const user = await fx.createLoginUser();
      const grant = await seedConsent(fx.svc.stack.runtime, user as never, fx.rp.clientId, ['openid']);
      const signed = await fx.signIn(user);
      const otherBrowser = await fx.signIn(await fx.createLoginUser());
      const foreign = csrfIn((await otherBrowser.jar.get('/account')).text);
      // Another session of this same browser: the token of its earlier sign-in.
      const earlierToken = csrfIn(signed.page.text);
      signed.jar.cookies.delete('session'); // the csrf cookie stays: the same browser
      const relogin = await fx.signIn(user, signed.jar);
      expect(relogin.cookie).not.toBe(signed.cookie);
      const passkey = await fx.addPasskey(user.id, 'Key');
      const ctx = { user, grant: grant.id, passkey: passkey.id };
      const before = await userItem(user.id);

      const attempts: Record<string, string>[] = [{}, { csrf_token: foreign }, { csrf_token: earlierToken }, { csrf_token: '' }];
      for (const extra of attempts) {
        const res = await signed.jar.post('/account', { action, ...fields(ctx), ...extra });
        expect(res.status).toBe(400);
        expect(res.text).toContain('Form expired');
        expect(res.setCookie).toEqual([]);
      }
      // The right token in a browser without the csrf cookie (the session cookie alone, as a cross-site form sends it).
      const bare = new CookieJar(fx.url);
      bare.cookies.set('session', relogin.cookie);
      const token = csrfIn((await signed.jar.get('/account')).text);
      const noCsrfCookie = await bare.post('/account', { action, csrf_token: token, ...fields(ctx) });
      expect(noCsrfCookie.status).toBe(400);

      const after = await userItem(user.id);
      expect(after!.password_hash).toBe(before!.password_hash);
      expect(after!.login_failures ?? 0).toBe(0);
      expect(await fx.passkeys.list(user.id)).toHaveLength(1);
      expect(await fx.grants.findConsent(user.id, fx.rp.clientId, null)).toMatchObject({ id: grant.id });
      expect(await fx.sessions.findSession(relogin.cookie)).toMatchObject({ user_id: user.id });
      expect(await fx.sessions.findSession(otherBrowser.cookie)).toBeDefined();
    },
  );

  it('an unknown action with a valid token: 400, nothing changed', async () => {
    const user = await fx.createLoginUser();
    const signed = await fx.signIn(user);
    const res = await act(signed, 'delete-everything');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Unknown action');
    expect(hiddenIn(res.text, 'csrf_token')).toBeUndefined();
    expect(await fx.sessions.findSession(signed.cookie)).toMatchObject({ user_id: user.id });
  });
});
