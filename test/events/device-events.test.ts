import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { deviceCodeHash } from '#shared/store/sessions/device-codes-repository.ts';
import { CookieJar, csrfIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * `device.approved` and `device.denied` (docs/events.md "Catalogue") through the whole device flow
 * over HTTP: /device_code, the /device page, /login, /consent, /device/resume. The event rides on
 * the decision's write: a code decided twice has one event, and none names the device or user code.
 */
let fx: PagesFixture;
let tv: Record<string, any>;

beforeAll(async () => {
  fx = await pagesFixture();
  tv = await fx.createClient({ client_name: 'Living Room TV', is_public: true, client_metadata: { grant_types: ['device_code'] } });
});
afterAll(async () => {
  await fx?.stop();
});

const runtime = () => fx.svc.stack.runtime;

async function startDevice(scope = 'openid profile') {
  const res = await fetch(`${fx.url}/device_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: tv.id, scope }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { device_code: string; user_code: string };
}

async function poll(deviceCode: string) {
  const res = await fetch(`${fx.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: tv.id }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A browser that enters the code, signs in and answers the consent page: the 303 to /device/resume. */
async function decide(userCode: string, user: { username: string; password: string }, decision: 'allow' | 'deny') {
  const jar = new CookieJar(fx.url, TEST_AGENT);
  const form = await jar.get('/device');
  const entered = await jar.post('/device', { csrf_token: csrfIn(form.text), user_code: userCode });
  expect(entered.status).toBe(303);
  const login = await jar.get(entered.location!);
  const signedIn = await jar.post(entered.location!, { csrf_token: csrfIn(login.text), username: user.username, password: user.password });
  expect(signedIn.status).toBe(303);
  const consent = await jar.get(signedIn.location!);
  expect(consent.status).toBe(200);
  const decided = await jar.post(signedIn.location!, { csrf_token: csrfIn(consent.text), decision });
  expect(decided.status).toBe(303);
  return { jar, resume: decided.location! };
}

describe('device.approved / device.denied', () => {
  it('allow: one device.approved with the granted scopes; the device gets its tokens; no code in any event', async () => {
    const user = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice('openid profile');
    const { jar, resume } = await decide(user_code, user, 'allow');
    const done = await jar.get(resume);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Device connected');
    expect(await storedItem(fx.svc, keys.deviceCode(deviceCodeHash(device_code)))).toMatchObject({ status: 'approved', user_id: user.id });
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'device.approved', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'device.approved',
        tenant_id: DEFAULT_TENANT_ID,
        client_id: tv.id,
        user_id: user.id,
        details: { scopes: ['openid', 'profile'] },
      },
      runtime().config.events.retentionDays,
    );
    expect((await poll(device_code)).status).toBe(200);
    await expectNoSecretStored(runtime(), DEFAULT_TENANT_ID, [
      device_code,
      deviceCodeHash(device_code),
      user_code,
      user_code.replace('-', ''),
      user.password,
    ]);
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'device.denied', user.id)).toEqual([]);
  });

  it('deny: one device.denied; the device hears access_denied', async () => {
    const user = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice();
    const { jar, resume } = await decide(user_code, user, 'deny');
    expect((await jar.get(resume)).text).toContain('Request denied');
    expect((await poll(device_code)).body.error).toBe('access_denied');
    const events = await eventsOf(runtime(), DEFAULT_TENANT_ID, 'device.denied', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      { type: 'device.denied', tenant_id: DEFAULT_TENANT_ID, client_id: tv.id, user_id: user.id },
      runtime().config.events.retentionDays,
    );
  });

  it('one code approved in two browsers at once: the first decision lands with its event, the second writes nothing', async () => {
    const user = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice();
    // Both browsers enter the code while it is pending, and both answer the consent page.
    const first = await decide(user_code, user, 'allow');
    const second = await decide(user_code, user, 'allow');
    const replies = await Promise.all([first.jar.get(first.resume), second.jar.get(second.resume)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.text).toContain('expired or was already used');
    expect(await eventsOf(runtime(), DEFAULT_TENANT_ID, 'device.approved', user.id)).toHaveLength(1);
    expect((await poll(device_code)).status).toBe(200);
  });
});
