import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, PASSWORD_HASH_PARAMS, parsePasswordHash, passwordHashPrefix, verifyPassword } from '#shared/crypto/password-hash.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { sessionHash } from '#shared/store/sessions/sessions-repository.ts';
import { userMarker } from '#shared/store/users/user-markers.ts';
import { CookieJar, csrfIn, hiddenIn, type PagesFixture, pagesFixture, TEST_RETURN_TO } from '../support/browser/pages-fixture.ts';
import { storedItem } from '../support/oauth/login-grants.ts';

/**
 * The hosted login and consent pages over HTTP (docs/browser-flows.md "Login", "Consent"), with
 * interactions put straight into the table as `/authorize` and `/device` store them: statuses,
 * headers, cookies and the stored state after each step.
 */
let fx: PagesFixture;
let thirdParty: Record<string, any>;

beforeAll(async () => {
  fx = await pagesFixture();
  thirdParty = await fx.createClient({ client_name: 'Photo Printer' });
});
afterAll(async () => {
  await fx?.stop();
});

const loginPath = (id: string) => `/login?interaction=${id}`;
const usernameMarker = (user: Record<string, any> & { username: string }) => userMarker(user.tenant_id, 'username', user.username);
const consentPath = (id: string) => `/consent?interaction=${id}`;

/** GET the login form and POST the password; returns the POST's reply. */
async function signIn(jar: CookieJar, id: string, username: string, password: string) {
  const form = await jar.get(loginPath(id));
  expect(form.status).toBe(200);
  return jar.post(loginPath(id), { csrf_token: csrfIn(form.text), username, password });
}

describe('/login', () => {
  it('without or with an unknown interaction: a 400 HTML page, no form', async () => {
    const jar = new CookieJar(fx.url);
    for (const path of ['/login', '/login?interaction=nope', `/login?interaction=${'A'.repeat(43)}`]) {
      const res = await jar.get(path);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).not.toContain('<form');
    }
  });

  it('shows the form: labelled username and password, hidden csrf_token, login_hint pre-filled, strict CSP, CSRF cookie flags', async () => {
    const { id } = await fx.interaction(thirdParty.id, { login_hint: 'ada@example.com' });
    const jar = new CookieJar(fx.url);
    const res = await jar.get(loginPath(id));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<label for="username">');
    expect(res.text).toContain('<label for="password">');
    expect(res.text).toMatch(/<input id="username" name="username"[^>]*value="ada@example.com"/);
    expect(res.text).toMatch(/<input id="password" name="password" type="password"/);
    expect(res.text).toContain('Photo Printer');
    expect(hiddenIn(res.text, 'csrf_token')).toMatch(/^[\w-]{43}$/); // HMAC-SHA256, base64url (shared/html/csrf.ts)
    // Small: one request, no external script, stylesheet or font (the passkey script, ~3.5 KB, is inline).
    expect(Buffer.byteLength(res.text)).toBeLessThan(6500);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.setCookie).toHaveLength(1);
    // Loopback http base URL: no Secure (docs/contract.md §7.4); HttpOnly, SameSite=Lax, Path=/ always.
    expect(res.setCookie[0]).toMatch(/^csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('the right password: 303 to consent, a new session cookie (flags, 24 h), the session and the login stored', async () => {
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    const res = await signIn(jar, id, user.username, user.password);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}${consentPath(id)}`);
    expect(res.setCookie).toHaveLength(1);
    expect(res.setCookie[0]).toMatch(/^session=[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    const cookie = jar.cookies.get('session')!;
    const session = await storedItem(fx.svc, keys.session(sessionHash(cookie)));
    expect(session).toMatchObject({ user_id: user.id, amr: ['pwd'], GSI2PK: `USER#${user.id}#SESSIONS` });
    const interaction = await fx.interactions.readInteraction(id);
    expect(interaction).toMatchObject({ user_id: user.id, session_id: session!.id, amr: ['pwd'], auth_time: session!.auth_time });
    expect(await storedItem(fx.svc, keys.user(user.id))).toMatchObject({ logins_count: 1 });
  });

  it('wrong password, unknown user and blocked user: one 400 message; no session, no login recorded', async () => {
    const user = await fx.createLoginUser();
    const blocked = await fx.createLoginUser();
    expect((await fx.call('POST', `/users/${blocked.id}/block`)).status).toBe(200);
    const { id } = await fx.interaction(thirdParty.id);
    const answers = [];
    for (const [username, password] of [
      [user.username, 'wrong-password-123'],
      ['nobody-here', 'wrong-password-123'],
      [blocked.username, blocked.password],
    ] as const) {
      const jar = new CookieJar(fx.url);
      const res = await signIn(jar, id, username, password);
      expect(res.status).toBe(400);
      expect(jar.cookies.has('session')).toBe(false);
      answers.push(/<p class="error" role="alert">([^<]*)<\/p>/.exec(res.text)?.[1]);
      // The username typed stays in the form (escaped), the password never comes back.
      expect(res.text).toContain(`value="${username}"`);
      expect(res.text).not.toContain(password);
    }
    expect(new Set(answers)).toEqual(new Set(['The username or password is not correct.']));
    expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('lockout (docs/contract.md §7.3): after 10 failures a 429 page with Retry-After, even with the right password', async () => {
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    for (let i = 0; i < 10; i++) expect((await signIn(jar, id, user.username, 'wrong-password-123')).status).toBe(400);
    const locked = await signIn(jar, id, user.username, user.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.text).toContain('Too many failed attempts. Try again in 15 minutes.');
    expect(jar.cookies.has('session')).toBe(false);
  });

  it('CSRF: a missing, wrong or other-browser token is a 400 form and checks no password (nothing counted)', async () => {
    const user = await fx.createLoginUser();
    const { id } = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    const form = await jar.get(loginPath(id));
    const other = new CookieJar(fx.url);
    const otherToken = csrfIn((await other.get(loginPath(id))).text);
    for (const csrf_token of [undefined, 'x'.repeat(43), otherToken]) {
      const res = await jar.post(loginPath(id), {
        ...(csrf_token ? { csrf_token } : {}),
        username: user.username,
        password: user.password,
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain('This form has expired');
      expect(jar.cookies.has('session')).toBe(false);
    }
    // A browser without the CSRF cookie (a cross-site POST carries none: SameSite=Lax).
    const bare = await new CookieJar(fx.url).post(loginPath(id), {
      csrf_token: csrfIn(form.text),
      username: user.username,
      password: user.password,
    });
    expect(bare.status).toBe(400);
    expect(await storedItem(fx.svc, keys.user(user.id))).not.toHaveProperty('login_failures');
    expect((await fx.interactions.readInteraction(id))?.user_id).toBeUndefined();
  });

  it('session fixation: a session cookie set before the login is replaced, and that session ends', async () => {
    const attacker = await fx.createLoginUser();
    const victim = await fx.createLoginUser();
    const first = await fx.interaction(thirdParty.id);
    const attackerJar = new CookieJar(fx.url);
    expect((await signIn(attackerJar, first.id, attacker.username, attacker.password)).status).toBe(303);
    const planted = attackerJar.cookies.get('session')!;

    const victimJar = new CookieJar(fx.url);
    victimJar.cookies.set('session', planted);
    const { id } = await fx.interaction(thirdParty.id, { prompt: ['login'] });
    expect((await signIn(victimJar, id, victim.username, victim.password)).status).toBe(303);
    const fresh = victimJar.cookies.get('session')!;
    expect(fresh).not.toBe(planted);
    expect((await fx.sessions.findSession(fresh))?.user_id).toBe(victim.id);
    expect(await fx.sessions.findSession(planted)).toBeUndefined();
  });

  it('a live session skips the form (303 to consent, login recorded); prompt=login and an exceeded max_age show it', async () => {
    const user = await fx.createLoginUser();
    const jar = new CookieJar(fx.url);
    expect((await signIn(jar, (await fx.interaction(thirdParty.id)).id, user.username, user.password)).status).toBe(303);
    const session = await fx.sessions.findSession(jar.cookies.get('session')!);

    const next = await fx.interaction(thirdParty.id, { max_age: 3600 });
    const skipped = await jar.get(loginPath(next.id));
    expect(skipped.status).toBe(303);
    expect(skipped.location).toBe(`${fx.url}${consentPath(next.id)}`);
    expect(skipped.setCookie).toEqual([]);
    expect(await fx.interactions.readInteraction(next.id)).toMatchObject({ user_id: user.id, session_id: session!.id });

    const forced = await fx.interaction(thirdParty.id, { prompt: ['login'] });
    expect((await jar.get(loginPath(forced.id))).status).toBe(200);
    const strict = await fx.interaction(thirdParty.id, { max_age: 0 });
    fx.clock.advance(2000);
    expect((await jar.get(loginPath(strict.id))).status).toBe(200);
    expect((await fx.interactions.readInteraction(strict.id))?.user_id).toBeUndefined();
  });

  it('OTP step: a user with an authenticator gets the code form after the password; a wrong code is refused; the right one signs in with amr pwd+otp', async () => {
    const user = await fx.createLoginUser();
    const code = await fx.enrollOtp(user.id);
    const { id } = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    const step = await signIn(jar, id, user.username, user.password);
    expect(step.status).toBe(200);
    expect(step.text).toContain('<label for="otp">');
    expect(step.text).toMatch(/<input id="otp" name="otp"/);
    expect(jar.cookies.has('session')).toBe(false);
    const otpState = hiddenIn(step.text, 'otp_state')!;
    const wrongCode = code() === '000000' ? '111111' : '000000';
    const wrong = await jar.post(loginPath(id), { csrf_token: csrfIn(step.text), otp_state: otpState, otp: wrongCode });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The code is not correct.');
    // A forged state (another user id under the same token) is refused before any code is checked.
    const forged = await jar.post(loginPath(id), {
      csrf_token: csrfIn(step.text),
      otp_state: `${thirdParty.id}.${otpState.split('.')[1]}`,
      otp: code(),
    });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain('This form has expired');
    const ok = await jar.post(loginPath(id), {
      csrf_token: csrfIn(wrong.text),
      otp_state: hiddenIn(wrong.text, 'otp_state')!,
      otp: code(),
    });
    expect(ok.status).toBe(303);
    expect((await fx.sessions.findSession(jar.cookies.get('session')!))?.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await fx.interactions.readInteraction(id))?.amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(await storedItem(fx.svc, keys.user(user.id))).not.toHaveProperty('login_failures'); // reset by the success
  });

  it('OTP step at the limit: a right password leaves the code one attempt, after a lockout ran out and as the 10th attempt', async () => {
    const user = await fx.createLoginUser();
    const code = await fx.enrollOtp(user.id);
    const setCount = (n: number, atMs: number) =>
      fx.svc.stack.runtime.db.send(
        new UpdateCommand({
          TableName: fx.svc.stack.runtime.config.tableName,
          Key: keys.user(user.id),
          UpdateExpression: 'SET login_failures = :n, login_attempt_at = :at',
          ExpressionAttributeValues: { ':n': n, ':at': atMs },
        }),
      );
    const codeStep = (jar: CookieJar, id: string, step: { text: string }, otp: string) =>
      jar.post(loginPath(id), { csrf_token: csrfIn(step.text), otp_state: hiddenIn(step.text, 'otp_state')!, otp });

    // A lockout that ran out 16 minutes ago: the password passes, and so must the code.
    await setCount(10, Date.now() - 16 * 60_000);
    const first = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    const step = await signIn(jar, first.id, user.username, user.password);
    expect(step.status).toBe(200);
    expect((await storedItem(fx.svc, keys.user(user.id)))?.login_failures).toBe(9);
    const ok = await codeStep(jar, first.id, step, code());
    expect(ok.status).toBe(303);
    expect(await storedItem(fx.svc, keys.user(user.id))).not.toHaveProperty('login_failures');

    // Nine recent failures, then the right password as the 10th attempt: the code still gets its one try...
    await setCount(9, Date.now());
    const second = await fx.interaction(thirdParty.id);
    const jar2 = new CookieJar(fx.url);
    const step2 = await signIn(jar2, second.id, user.username, user.password);
    expect(step2.status).toBe(200);
    // ...and only one: a wrong code locks again, and then even the right code is refused.
    const wrongCode = code() === '000000' ? '111111' : '000000';
    const wrong = await codeStep(jar2, second.id, step2, wrongCode);
    expect(wrong.status).toBe(400);
    const locked = await codeStep(jar2, second.id, wrong, code());
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(jar2.cookies.has('session')).toBe(false);
    expect((await storedItem(fx.svc, keys.user(user.id)))?.login_failures).toBe(10);
  });

  it('OTP step: a hash whose parameters rose is rehashed at the password step, before the code (the login is recorded only by the code step)', async () => {
    const user = await fx.createLoginUser();
    const weak = await hashPassword(user.password, { memoryKiB: 4096, passes: 1, parallelism: 1 });
    const { db, config } = fx.svc.stack.runtime;
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.user(user.id),
        UpdateExpression: 'SET password_hash = :weak',
        ExpressionAttributeValues: { ':weak': weak },
      }),
    );
    const code = await fx.enrollOtp(user.id);
    const { id } = await fx.interaction(thirdParty.id);
    const jar = new CookieJar(fx.url);
    const before = await storedItem(fx.svc, keys.user(user.id));
    const step = await signIn(jar, id, user.username, user.password);
    expect(step.status).toBe(200);
    expect(step.text).toContain('<label for="otp">');
    const afterPassword = await storedItem(fx.svc, keys.user(user.id));
    const rehashed = afterPassword?.password_hash as string;
    expect(rehashed).not.toBe(weak);
    expect(parsePasswordHash(rehashed)?.params).toEqual(PASSWORD_HASH_PARAMS);
    expect(await verifyPassword(user.password, rehashed)).toBe(true);
    // The login marker moves to the new salt with it (user-markers.ts).
    expect((await storedItem(fx.svc, usernameMarker(user)))?.password_prefix).toBe(passwordHashPrefix(rehashed));
    // No login recorded yet, and the attempt stays counted until the code step succeeds.
    expect(afterPassword).toMatchObject({
      last_login: before?.last_login ?? null,
      logins_count: before?.logins_count ?? 0,
      login_failures: 1,
    });

    const ok = await jar.post(loginPath(id), { csrf_token: csrfIn(step.text), otp_state: hiddenIn(step.text, 'otp_state')!, otp: code() });
    expect(ok.status).toBe(303);
    const afterCode = await storedItem(fx.svc, keys.user(user.id));
    expect(afterCode).toMatchObject({ password_hash: rehashed, logins_count: 1 });
    expect(afterCode).not.toHaveProperty('login_failures');
  });

  it('a login marker without the prefix of the password hash gets it from the password step, with or without a code step', async () => {
    for (const withOtp of [false, true]) {
      const user = await fx.createLoginUser();
      const { db, config } = fx.svc.stack.runtime;
      await db.send(
        new UpdateCommand({ TableName: config.tableName, Key: usernameMarker(user), UpdateExpression: 'REMOVE password_prefix' }),
      );
      if (withOtp) await fx.enrollOtp(user.id);
      const step = await signIn(new CookieJar(fx.url), (await fx.interaction(thirdParty.id)).id, user.username, user.password);
      expect(step.status, `otp: ${withOtp}`).toBe(withOtp ? 200 : 303);
      const hash = (await storedItem(fx.svc, keys.user(user.id)))?.password_hash as string;
      expect((await storedItem(fx.svc, usernameMarker(user)))?.password_prefix, `otp: ${withOtp}`).toBe(passwordHashPrefix(hash));
    }
  });

  it('blocking the user ends the session: the item gets ended_at and the cookie no longer serves', async () => {
    const user = await fx.createLoginUser();
    const jar = new CookieJar(fx.url);
    expect((await signIn(jar, (await fx.interaction(thirdParty.id)).id, user.username, user.password)).status).toBe(303);
    const cookie = jar.cookies.get('session')!;
    expect((await fx.call('POST', `/users/${user.id}/block`)).status).toBe(200);
    expect((await storedItem(fx.svc, keys.session(sessionHash(cookie))))?.ended_at).toEqual(expect.any(String));
    const next = await fx.interaction(thirdParty.id);
    expect((await jar.get(loginPath(next.id))).status).toBe(200);
  });

  it('deleting the user ends the session and removes the grants', async () => {
    const user = await fx.createLoginUser();
    const jar = new CookieJar(fx.url);
    expect((await signIn(jar, (await fx.interaction(thirdParty.id)).id, user.username, user.password)).status).toBe(303);
    await fx.grants.saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: thirdParty.id,
      resourceId: null,
      scopes: ['openid'],
    });
    const cookie = jar.cookies.get('session')!;
    expect((await fx.call('DELETE', `/users/${user.id}`)).status).toBe(204);
    expect((await storedItem(fx.svc, keys.session(sessionHash(cookie))))?.ended_at).toEqual(expect.any(String));
    expect(await storedItem(fx.svc, keys.consent(user.id, thirdParty.id, null))).toBeUndefined();
  });
});

describe('/consent', () => {
  async function loggedIn(fields: Parameters<PagesFixture['interaction']>[1] = {}, clientId = thirdParty.id) {
    const user = await fx.createLoginUser();
    const interaction = await fx.interaction(clientId, fields);
    const jar = new CookieJar(fx.url);
    expect((await signIn(jar, interaction.id, user.username, user.password)).status).toBe(303);
    return { user, id: interaction.id, jar };
  }

  it('asks a third-party client: client name, the scopes, the two decision buttons; allow stores the grant and the decision', async () => {
    const api = await fx.createResource(['read:photos']);
    const { user, id, jar } = await loggedIn({ scopes: ['openid', 'email', 'read:photos'], resource_id: api.id });
    const page = await jar.get(consentPath(id));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong>Photo Printer</strong>');
    expect(page.text).toContain('See your email address');
    expect(page.text).toContain('<code>read:photos</code>');
    expect(page.text).toContain('<button type="submit" name="decision" value="allow">');
    expect(page.text).toContain('<button type="submit" name="decision" value="deny">');
    const res = await jar.post(consentPath(id), { csrf_token: csrfIn(page.text), decision: 'allow' });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}${TEST_RETURN_TO}`);
    expect(await fx.interactions.readInteraction(id)).toMatchObject({
      decision: 'allow',
      granted_scopes: ['openid', 'email', 'read:photos'],
    });
    const grant = await fx.grants.findConsent(user.id, thirdParty.id, api.id);
    expect(grant).toMatchObject({
      user_id: user.id,
      client_id: thirdParty.id,
      resource_id: api.id,
      scopes: ['email', 'openid', 'read:photos'],
    });
  });

  it('deny records the decision and stores no grant', async () => {
    const { user, id, jar } = await loggedIn();
    const page = await jar.get(consentPath(id));
    const res = await jar.post(consentPath(id), { csrf_token: csrfIn(page.text), decision: 'deny' });
    expect(res.status).toBe(303);
    expect((await fx.interactions.readInteraction(id))?.decision).toBe('deny');
    expect(await fx.grants.findConsent(user.id, thirdParty.id, null)).toBeUndefined();
  });

  it('remembered: a grant covering the scopes skips the page (303, allow); more scopes or prompt=consent ask again', async () => {
    const { user, jar } = await loggedIn();
    await fx.grants.saveConsent({
      userId: user.id,
      tenantId: user.tenant_id,
      clientId: thirdParty.id,
      resourceId: null,
      scopes: ['openid', 'profile'],
    });
    const covered = await fx.interaction(thirdParty.id, { scopes: ['openid'] });
    expect((await jar.get(loginPath(covered.id))).status).toBe(303);
    const skip = await jar.get(consentPath(covered.id));
    expect(skip.status).toBe(303);
    expect(skip.location).toBe(`${fx.url}${TEST_RETURN_TO}`);
    expect(await fx.interactions.readInteraction(covered.id)).toMatchObject({ decision: 'allow', granted_scopes: ['openid'] });
    for (const fields of [{ scopes: ['openid', 'email'] }, { scopes: ['openid'], prompt: ['consent'] }]) {
      const again = await fx.interaction(thirdParty.id, fields);
      await jar.get(loginPath(again.id));
      expect((await jar.get(consentPath(again.id))).status).toBe(200);
    }
  });

  it('a first-party client skips consent for a Resource with skip_consent_for_first_party; not for one without', async () => {
    const first = await fx.createClient({ client_name: 'Own app', is_first_party: true });
    const skipping = await fx.createResource(['read']);
    const asking = await fx.createResource(['read']);
    await fx.call('PATCH', `/resources/${asking.id}`, { body: { resource_metadata: { skip_consent_for_first_party: false } } });
    const a = await loggedIn({ scopes: ['openid', 'read'], resource_id: skipping.id }, first.id);
    expect((await a.jar.get(consentPath(a.id))).status).toBe(303);
    const b = await fx.interaction(first.id, { scopes: ['openid', 'read'], resource_id: asking.id });
    await a.jar.get(loginPath(b.id));
    expect((await a.jar.get(consentPath(b.id))).status).toBe(200);
  });

  it("another browser's session cannot see or answer the consent: 400, nothing written", async () => {
    const { id, jar } = await loggedIn();
    const page = await jar.get(consentPath(id));
    const intruder = await loggedIn();
    const seen = await intruder.jar.get(consentPath(id));
    expect(seen.status).toBe(400);
    expect(seen.text).not.toContain('decision');
    const posted = await intruder.jar.post(consentPath(id), { csrf_token: csrfIn(page.text), decision: 'allow' });
    expect(posted.status).toBe(400);
    const anonymous = await new CookieJar(fx.url).post(consentPath(id), { csrf_token: csrfIn(page.text), decision: 'allow' });
    expect(anonymous.status).toBe(400);
    expect((await fx.interactions.readInteraction(id))?.decision).toBeUndefined();
    expect(await fx.grants.findConsent(intruder.user.id, thirdParty.id, null)).toBeUndefined();
  });

  it('CSRF: a missing or wrong token is a 400 page and decides nothing; an unknown decision too', async () => {
    const { id, jar } = await loggedIn();
    const page = await jar.get(consentPath(id));
    const forms: Record<string, string>[] = [
      { decision: 'allow' },
      { csrf_token: 'x'.repeat(43), decision: 'allow' },
      { csrf_token: csrfIn(page.text), decision: 'maybe' },
    ];
    for (const form of forms) {
      expect((await jar.post(consentPath(id), form)).status).toBe(400);
    }
    expect((await fx.interactions.readInteraction(id))?.decision).toBeUndefined();
  });

  it('before any login: consent sends the browser to the login page', async () => {
    const { id } = await fx.interaction(thirdParty.id);
    const res = await new CookieJar(fx.url).get(consentPath(id));
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${fx.url}${loginPath(id)}`);
  });
});

describe('escaping: <script> in every reflected value shows as text', () => {
  const XSS = '<script>alert(1)</script>';
  it('login_hint, a typed username, the client name and scope names', async () => {
    const evil = await fx.createClient({ client_name: `Evil ${XSS}` });
    const { id } = await fx.interaction(evil.id, { login_hint: `"><${XSS}`, scopes: ['openid', `x${XSS}`] });
    const jar = new CookieJar(fx.url);
    const form = await jar.get(loginPath(id));
    const failed = await jar.post(loginPath(id), { csrf_token: csrfIn(form.text), username: XSS, password: 'wrong-password-123' });
    const user = await fx.createLoginUser();
    const ok = await jar.post(loginPath(id), { csrf_token: csrfIn(failed.text), username: user.username, password: user.password });
    expect(ok.status).toBe(303);
    const consent = await jar.get(consentPath(id));
    for (const page of [form, failed, consent]) {
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect(form.text).toContain('value="&quot;&gt;&lt;&lt;script&gt;');
  });
});
