import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { CookieJar, csrfIn, hiddenIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { commandsDuring, eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { storedEvents } from '../support/store/stored-events.ts';

/**
 * The hosted login page's sign-in events (docs/events.md "Recording"), over HTTP as a browser
 * posts the forms: the success's events ride on the login's write (counted), a refused step
 * records one event of its own.
 */
let fx: PagesFixture;
let clientId: string;

beforeAll(async () => {
  fx = await pagesFixture();
  clientId = (await fx.createClient({ client_name: 'Event Watcher' })).id;
});
afterAll(async () => {
  await fx?.stop();
});

const runtime = () => fx.svc.stack.runtime;
const retention = () => runtime().config.events.retentionDays;
const loginPath = (id: string) => `/login?interaction=${id}`;

/** A browser (TEST_AGENT) on a new interaction's login form. */
async function loginForm() {
  const { id } = await fx.interaction(clientId);
  const jar = new CookieJar(fx.url, TEST_AGENT);
  const form = await jar.get(loginPath(id));
  expect(form.status).toBe(200);
  return { id, jar, csrf: csrfIn(form.text) };
}

describe('hosted login page: sign-in events', () => {
  it('the right password: 303, login.succeeded in the login write (counted: no call more), no password stored', async () => {
    const user = await fx.createLoginUser();
    const { id, jar, csrf } = await loginForm();
    let status = 0;
    const calls = await commandsDuring(runtime(), async () => {
      status = (await jar.post(loginPath(id), { csrf_token: csrf, username: user.username, password: user.password })).status;
    });
    expect(status).toBe(303);
    expect(jar.cookies.has('session')).toBe(true);
    // Without events the login write was one UpdateItemCommand; with its event it is one
    // transaction of two items. The rest is the page's: the interaction read, the marker read,
    // the counting write, the passkey list, the session (a transaction with the user's
    // `live_sessions`), the interaction's login.
    expect(calls.filter((c) => c.startsWith('TransactWriteItemsCommand(2)'))).toHaveLength(2);
    expect(calls.filter((c) => c === 'PutItemCommand')).toEqual([]);
    expect(calls).toEqual([
      'GetItemCommand',
      'GetItemCommand',
      'UpdateItemCommand',
      'QueryCommand',
      'TransactWriteItemsCommand(2)',
      'TransactWriteItemsCommand(2)',
      'UpdateItemCommand',
    ]);
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'login.succeeded', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'login.succeeded',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: clientId,
        user_id: user.id,
        details: { method: 'password', amr: ['pwd'] },
      },
      retention(),
    );
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [user.password, jar.cookies.get('session')]);
  });

  it('a wrong password and an unknown login: the same 400 page; login.failed wrong_password / unknown_user; the login typed is not stored', async () => {
    const user = await fx.createLoginUser();
    const typed = `Typed-${Math.random().toString(36).slice(2)}-Login`;
    const before = (await storedEvents(runtime(), DEFAULT_TENANT_ID, 'login.failed')).length;
    const a = await loginForm();
    const wrong = await a.jar.post(loginPath(a.id), { csrf_token: a.csrf, username: user.username, password: 'not-the-password-1' });
    const b = await loginForm();
    const unknown = await b.jar.post(loginPath(b.id), { csrf_token: b.csrf, username: typed, password: 'not-the-password-2' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(400);
      expect(res.text).toContain('The username or password is not correct.');
    }
    const failed = (await storedEvents(runtime(), DEFAULT_TENANT_ID, 'login.failed')).slice(before);
    expect(failed).toHaveLength(2);
    const base = { type: 'login.failed', tenant_id: DEFAULT_TENANT_ID, client_id: clientId, details: { method: 'password' } } as const;
    expectEvent(failed[0], { ...base, user_id: user.id, reason: 'wrong_password' }, retention());
    expectEvent(failed[1], { ...base, reason: 'unknown_user' }, retention());
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [typed, typed.toLowerCase(), 'not-the-password-1', 'not-the-password-2']);
  });

  it('the code step: a wrong code is mfa.failed; the right one folds mfa.succeeded and login.succeeded into the login write', async () => {
    const user = await fx.createLoginUser();
    const code = await fx.enrollOtp(user.id);
    const { id, jar, csrf } = await loginForm();
    const step = await jar.post(loginPath(id), { csrf_token: csrf, username: user.username, password: user.password });
    expect(step.status).toBe(200);
    // The password step passed, the login is not done: nothing recorded yet.
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'login.succeeded', user.id)).toEqual([]);
    const wrongCode = code() === '000000' ? '111111' : '000000';
    const wrong = await jar.post(loginPath(id), {
      csrf_token: csrfIn(step.text),
      otp_state: hiddenIn(step.text, 'otp_state')!,
      otp: wrongCode,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The code is not correct.');
    const failed = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'mfa.failed', user.id);
    expect(failed).toHaveLength(1);
    expectEvent(
      failed[0],
      {
        type: 'mfa.failed',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: clientId,
        user_id: user.id,
        reason: 'wrong_otp',
        details: { method: 'otp' },
      },
      retention(),
    );
    const right = code();
    const ok = await jar.post(loginPath(id), { csrf_token: csrfIn(wrong.text), otp_state: hiddenIn(wrong.text, 'otp_state')!, otp: right });
    expect(ok.status).toBe(303);
    const mfa = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'mfa.succeeded', user.id);
    const login = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'login.succeeded', user.id);
    const fields = { tenant_id: DEFAULT_TENANT_ID, client_id: clientId, user_id: user.id };
    expectEvent(mfa[0], { type: 'mfa.succeeded', ...fields, details: { method: 'otp' } }, retention());
    expectEvent(login[0], { type: 'login.succeeded', ...fields, details: { method: 'password', amr: ['pwd', 'otp', 'mfa'] } }, retention());
    expect(mfa[0]!.occurred_at).toBe(login[0]!.occurred_at);
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'login.failed', user.id)).toEqual([]);
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [user.password]);
    const values = (await storedEvents(runtime(), DEFAULT_TENANT_ID)).flatMap((e) => JSON.stringify(e).match(/"[^"]*"/g) ?? []);
    expect(values).not.toContain(`"${right}"`);
    expect(values).not.toContain(`"${wrongCode}"`);
  });
});
