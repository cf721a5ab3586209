import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { type AccountFixture, accountFixture } from '../support/browser/account-fixture.ts';
import { CookieJar, csrfIn } from '../support/browser/pages-fixture.ts';
import { seedConsent } from '../support/browser/seed-session.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * The security events of the consent page and the account page (docs/events.md "Catalogue"), over
 * HTTP: `consent.granted`, `consent.withdrawn`, `password.changed`, `authenticator.removed`. Each
 * rides on the change's own write: a refused or lost change records nothing, and of concurrent
 * changes only the one that lands has an event.
 */
let fx: AccountFixture;
let thirdParty: Record<string, any>;
const NEW_PASSWORD = 'another-Staple-battery-4471';

beforeAll(async () => {
  fx = await accountFixture();
  thirdParty = await fx.createClient({ client_name: 'Photo Printer' });
});
afterAll(async () => {
  await fx?.stop();
});

const runtime = () => fx.svc.stack.runtime;
const retention = () => runtime().config.events.retentionDays;
const signIn = (user: { username: string; password: string }) => fx.signIn(user, new CookieJar(fx.url, TEST_AGENT));

async function act(signed: { jar: CookieJar }, action: string, fields: Record<string, string> = {}) {
  const page = await signed.jar.get('/account');
  expect(page.status).toBe(200);
  return signed.jar.post('/account', { csrf_token: csrfIn(page.text), action, ...fields });
}

describe('consent.granted (the consent page)', () => {
  async function atConsent(scopes: string[], resourceId?: string) {
    const user = await fx.createLoginUser();
    const interaction = await fx.interaction(thirdParty.id, { scopes, ...(resourceId ? { resource_id: resourceId } : {}) });
    const jar = new CookieJar(fx.url, TEST_AGENT);
    const path = `/login?interaction=${interaction.id}`;
    const form = await jar.get(path);
    expect((await jar.post(path, { csrf_token: csrfIn(form.text), username: user.username, password: user.password })).status).toBe(303);
    const page = await jar.get(`/consent?interaction=${interaction.id}`);
    expect(page.status).toBe(200);
    return { user, jar, id: interaction.id, token: csrfIn(page.text) };
  }

  it('allow: the grant is stored and one event names the client, the scopes and the Resource', async () => {
    const api = await fx.createResource(['read:photos']);
    const { user, jar, id, token } = await atConsent(['openid', 'email', 'read:photos'], api.id);
    const res = await jar.post(`/consent?interaction=${id}`, { csrf_token: token, decision: 'allow' });
    expect(res.status).toBe(303);
    expect(await fx.grants.findConsent(user.id, thirdParty.id, api.id)).toMatchObject({ scopes: ['email', 'openid', 'read:photos'] });
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'consent.granted', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'consent.granted',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: thirdParty.id,
        user_id: user.id,
        details: { scopes: ['openid', 'email', 'read:photos'], resource_id: api.id },
      },
      retention(),
    );
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [user.password, token, jar.cookies.get('session')]);
  });

  it('deny, or a form with a wrong CSRF token: no grant, no event', async () => {
    const { user, jar, id, token } = await atConsent(['openid']);
    expect((await jar.post(`/consent?interaction=${id}`, { csrf_token: 'x'.repeat(43), decision: 'allow' })).status).toBe(400);
    expect((await jar.post(`/consent?interaction=${id}`, { csrf_token: token, decision: 'deny' })).status).toBe(303);
    expect(await fx.grants.findConsent(user.id, thirdParty.id, null)).toBeUndefined();
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'consent.granted', user.id)).toEqual([]);
  });
});

describe('the account page', () => {
  it('password.changed: by the user, via the account page; a wrong current password changes nothing and records none', async () => {
    const user = await fx.createLoginUser();
    const signed = await signIn(user);
    const wrong = await act(signed, 'change-password', {
      current_password: 'not-the-Password-1234',
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(400);
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'password.changed', user.id)).toEqual([]);

    const before = await storedItem(fx.svc, keys.user(user.id));
    const res = await act(signed, 'change-password', {
      current_password: user.password,
      new_password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}/account?done=password`);
    const after = await storedItem(fx.svc, keys.user(user.id));
    expect(after!.password_hash).not.toBe(before!.password_hash);
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'password.changed', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'password.changed',
        tenant_id: DEFAULT_TENANT_ID,
        user_id: user.id,
        actor: { sub: user.id },
        details: { via: 'account' },
      },
      retention(),
    );
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [
      user.password,
      NEW_PASSWORD,
      before!.password_hash as string,
      after!.password_hash as string,
      signed.cookie,
    ]);
  });

  it('consent.withdrawn: the grant and its client; of 6 concurrent withdrawals one lands and one event is stored', async () => {
    const user = await fx.createLoginUser();
    const grant = await seedConsent(runtime(), user as never, fx.rp.clientId, ['openid', 'offline_access']);
    const signed = await signIn(user);
    const token = csrfIn(signed.page.text);
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => signed.jar.post('/account', { csrf_token: token, action: 'withdraw-grant', grant: grant.id })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([303, 400, 400, 400, 400, 400]);
    expect(await fx.grants.findConsent(user.id, fx.rp.clientId, null)).toBeUndefined();
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'consent.withdrawn', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'consent.withdrawn',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: fx.rp.clientId,
        user_id: user.id,
        actor: { sub: user.id },
        target: { type: 'grant', id: grant.id },
        details: { scopes: ['offline_access', 'openid'], via: 'account' },
      },
      retention(),
    );
  });

  it('authenticator.removed: the passkey by its id; another user’s passkey removes nothing and records none', async () => {
    const user = await fx.createLoginUser();
    const victim = await fx.createLoginUser();
    const signed = await signIn(user);
    const mine = await fx.addPasskey(user.id, 'Laptop');
    const theirs = await fx.addPasskey(victim.id, 'Phone');
    expect((await act(signed, 'remove-passkey', { passkey: theirs.id })).status).toBe(400);
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'authenticator.removed', victim.id)).toEqual([]);
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'authenticator.removed', user.id)).toEqual([]);

    const token = csrfIn((await signed.jar.get('/account')).text);
    const replies = await Promise.all(
      Array.from({ length: 4 }, () => signed.jar.post('/account', { csrf_token: token, action: 'remove-passkey', passkey: mine.id })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([303, 400, 400, 400]);
    expect(await fx.passkeys.list(user.id)).toEqual([]);
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'authenticator.removed', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'authenticator.removed',
        tenant_id: DEFAULT_TENANT_ID,
        user_id: user.id,
        actor: { sub: user.id },
        target: { type: 'authenticator', id: mine.id },
        details: { kind: 'passkey', via: 'account' },
      },
      retention(),
    );
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [mine.public_key, mine.credential_id]);
  });
});
