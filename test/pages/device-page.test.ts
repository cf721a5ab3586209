import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { deviceCodeHash } from '#shared/store/sessions/device-codes-repository.ts';
import { devicePageDeps } from '#shared/wiring/pages.ts';
import { CookieJar, csrfIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * The `/device` page and `/device/resume` over HTTP (docs/contract.md §7.8, RFC 8628 §3.3, §5.1;
 * docs/browser-flows.md "Device flow"): the user code is checked first, then the real `/login`
 * and `/consent` pages, then resume records the decision and the device's poll gets its tokens.
 * Every request comes from 127.0.0.1, so the attempt-limit test runs last and the others send
 * no wrong well-formed code.
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

async function startDevice(scope = 'openid profile') {
  const res = await fetch(`${fx.url}/device_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: tv.id, scope }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { device_code: string; user_code: string; verification_uri_complete: string };
}

async function poll(deviceCode: string) {
  const res = await fetch(`${fx.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: tv.id }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** GET /device, then POST the code with the page's CSRF token. */
async function enterCode(jar: CookieJar, userCode: string) {
  const form = await jar.get('/device');
  expect(form.status).toBe(200);
  return jar.post('/device', { csrf_token: csrfIn(form.text), user_code: userCode });
}

/** From a 303 to /login: log in, then answer the consent page; returns the 303 to resume. */
async function loginAndDecide(jar: CookieJar, loginUrl: string, user: { username: string; password: string }, decision: 'allow' | 'deny') {
  const login = await jar.get(loginUrl);
  expect(login.status).toBe(200);
  const signedIn = await jar.post(loginUrl, { csrf_token: csrfIn(login.text), username: user.username, password: user.password });
  expect(signedIn.status).toBe(303);
  const consent = await jar.get(signedIn.location!);
  expect(consent.status).toBe(200);
  expect(consent.text).toContain('Living Room TV');
  // RFC 8628 §5.4: the consent page shows the code the user typed, to catch a phished one.
  expect(consent.text).toMatch(/your device shows the code <strong>[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}<\/strong>/);
  const decided = await jar.post(signedIn.location!, { csrf_token: csrfIn(consent.text), decision });
  expect(decided.status).toBe(303);
  return decided;
}

const interactionOf = (location: string) => new URL(location).searchParams.get('interaction')!;

describe('GET /device', () => {
  it('the form: labelled user_code, hidden csrf_token, the csrf cookie, strict CSP; ?user_code= pre-fills, escaped', async () => {
    const jar = new CookieJar(fx.url);
    const res = await jar.get('/device');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('<label for="user_code">');
    expect(res.text).toMatch(/<input id="user_code" name="user_code" value=""/);
    expect(csrfIn(res.text)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.setCookie[0]).toMatch(/^csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    const pre = await jar.get('/device?user_code=BCDF-GHJK');
    expect(pre.text).toContain('value="BCDF-GHJK"');
    const xss = await jar.get(`/device?user_code=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(xss.status).toBe(200);
    expect(xss.text).not.toContain('<script>');
    expect(xss.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });
});

describe('POST /device', () => {
  it('CSRF: a missing, wrong or other-browser token is a 400 page; nothing looked up or counted', async () => {
    const { user_code } = await startDevice();
    const jar = new CookieJar(fx.url);
    const form = await jar.get('/device');
    const token = csrfIn(form.text);
    expect((await jar.post('/device', { user_code })).status).toBe(400);
    expect((await jar.post('/device', { user_code, csrf_token: `${token.slice(0, -2)}AA` })).status).toBe(400);
    const other = new CookieJar(fx.url);
    await other.get('/device');
    const crossed = await other.post('/device', { user_code, csrf_token: token });
    expect(crossed.status).toBe(400);
    expect(crossed.location).toBeNull();
    const noCookie = await fetch(`${fx.url}/device`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user_code, csrf_token: token }),
    });
    expect(noCookie.status).toBe(400);
    const { Items } = await fx.svc.stack.runtime.db.send(new ScanCommand({ TableName: fx.svc.stack.tableName }));
    expect(Items!.filter((i) => String(i.PK).startsWith('USER_CODE_ATTEMPTS#'))).toEqual([]);
  });

  it('a value that cannot be a code is an error on the page, before any login; what was typed is shown back escaped', async () => {
    const jar = new CookieJar(fx.url);
    for (const typed of ['', 'AEIO-U123', '<script>x</script>']) {
      const res = await enterCode(jar, typed);
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('role="alert"');
      expect(res.text).toContain('That code is not valid');
      expect(res.text).not.toContain('<script>x');
    }
  });

  it('a right code, typed in lower case with spaces: 303 to /login with an interaction of kind device (consent asked)', async () => {
    const { user_code, device_code } = await startDevice('openid email');
    const jar = new CookieJar(fx.url);
    const res = await enterCode(jar, ` ${user_code.toLowerCase().replace('-', ' ')} `);
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^${fx.url}/login\\?interaction=[A-Za-z0-9_-]{43}$`));
    const id = interactionOf(res.location!);
    expect(await fx.interactions.readInteraction(id)).toMatchObject({
      kind: 'device',
      client_id: tv.id,
      scopes: ['openid', 'email'],
      prompt: ['consent'],
      return_to: `/device/resume?interaction=${id}`,
      payload: { device_hash: deviceCodeHash(device_code), user_code },
    });
  });
});

describe('the whole flow over HTTP: code → login → consent → resume → tokens', () => {
  it('allow: the page says to return to the device; the next poll gets tokens for the user, once', async () => {
    const user = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice('openid profile');
    expect((await poll(device_code)).body.error).toBe('authorization_pending');
    const jar = new CookieJar(fx.url);
    const entered = await enterCode(jar, user_code);
    const decided = await loginAndDecide(jar, entered.location!, user, 'allow');
    const id = interactionOf(entered.location!);
    expect(decided.location).toBe(`${fx.url}/device/resume?interaction=${id}`);
    const done = await jar.get(decided.location!);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Device connected');
    expect(done.text).toContain('return to your device');
    expect(await storedItem(fx.svc, keys.deviceCode(deviceCodeHash(device_code)))).toMatchObject({
      status: 'approved',
      user_id: user.id,
      granted_scopes: ['openid', 'profile'],
    });
    const tokens = await poll(device_code);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(JSON.parse(Buffer.from(tokens.body.access_token.split('.')[1], 'base64url').toString()).sub).toBe(user.id);
    expect((await poll(device_code)).body.error).toBe('invalid_grant');
    // The interaction was used once: resuming again is the expired page.
    const again = await jar.get(decided.location!);
    expect(again.status).toBe(400);
  });

  it('deny: the page says so and the device hears access_denied', async () => {
    const user = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice();
    const jar = new CookieJar(fx.url);
    const entered = await enterCode(jar, user_code);
    const decided = await loginAndDecide(jar, entered.location!, user, 'deny');
    const done = await jar.get(decided.location!);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Request denied');
    expect((await poll(device_code)).body.error).toBe('access_denied');
  });

  it("another browser's session cannot resume (nor use the interaction up); a code decided meanwhile shows the expired page", async () => {
    const user = await fx.createLoginUser();
    const other = await fx.createLoginUser();
    const { user_code, device_code } = await startDevice();
    const jar = new CookieJar(fx.url);
    const entered = await enterCode(jar, user_code);
    const decided = await loginAndDecide(jar, entered.location!, user, 'allow');
    // Another browser, logged in as someone else through an interaction of its own.
    const intruder = new CookieJar(fx.url);
    const { id: otherId } = await fx.interaction(tv.id);
    const login = await intruder.get(`/login?interaction=${otherId}`);
    await intruder.post(`/login?interaction=${otherId}`, {
      csrf_token: csrfIn(login.text),
      username: other.username,
      password: other.password,
    });
    expect(await fx.sessions.findSession(intruder.cookies.get('session') ?? '')).toMatchObject({ user_id: other.id });
    const stolen = await intruder.get(decided.location!);
    expect(stolen.status).toBe(400);
    expect((await fetch(decided.location!)).status).toBe(400); // no cookie at all
    expect((await poll(device_code)).body.error).toBe('authorization_pending');
    // Decided elsewhere (e.g. expired or used) before the owner resumes: an error page, nothing issued.
    expect(
      await devicePageDeps(fx.svc.stack.runtime).deviceCodes.decide(deviceCodeHash(device_code), {
        decision: 'deny',
        userId: other.id,
        authTime: 0,
        grantedScopes: [],
      }),
    ).toBe(true);
    const late = await jar.get(decided.location!);
    expect(late.status).toBe(400);
    expect(late.text).toContain('expired or was already used');
  });

  it('an interaction of another kind is not resumed here', async () => {
    const { id } = await fx.interaction(tv.id);
    const res = await new CookieJar(fx.url).get(`/device/resume?interaction=${id}`);
    expect(res.status).toBe(400);
    expect(await fx.interactions.readInteraction(id)).toMatchObject({ id, kind: 'authorize' });
  });
});

describe('brute force of user codes (RFC 8628 §5.1)', () => {
  it('5 wrong codes per address and window, then 429 with Retry-After, even for a right code; the count is stored per hashed address', async () => {
    const { user_code } = await startDevice();
    const jar = new CookieJar(fx.url);
    const wrong = user_code === 'BBBB-BBBB' ? 'CCCC-CCCC' : 'BBBB-BBBB';
    // A right code gives its count back: it does not use up the budget.
    expect((await enterCode(jar, user_code)).status).toBe(303);
    for (let i = 0; i < 5; i++) {
      const res = await enterCode(jar, wrong);
      expect(res.status, `attempt ${i + 1}`).toBe(400);
    }
    const refused = await enterCode(jar, wrong);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many wrong codes');
    const { user_code: fresh } = await startDevice();
    const right = await enterCode(jar, fresh);
    expect(right.status).toBe(429);
    expect(right.location).toBeNull();
    const { Items } = await fx.svc.stack.runtime.db.send(new ScanCommand({ TableName: fx.svc.stack.tableName }));
    const counters = Items!.filter((i) => String(i.PK).startsWith('USER_CODE_ATTEMPTS#'));
    expect(counters).toHaveLength(1);
    expect(counters[0]).toMatchObject({ attempts: 5 });
    expect(JSON.stringify(counters)).not.toContain('127.0.0.1');
  });
});
