import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { loginClient, tokenRequest } from '../../support/oauth/login-grants.ts';
import { csrfOf } from '../../support/oauth/signup.ts';
import { startTestService, type TestService } from '../../support/service/local-service.ts';
import { managementCaller } from '../../support/service/management-api.ts';
import { putUser } from '../../support/store/user-items.ts';

/**
 * Tickets made through the management API (docs/contract.md §6, §7.8) and their page over
 * HTTP: `POST /identity/v1/tickets/password-change` and `/email-verification` → 201
 * `{id, ticket, expires_at}`; the page redeems once, redirects to `result_url` only after a
 * success, and a password change revokes the user's refresh tokens. Chromium:
 * test/pages/management-tickets-page.test.ts.
 */
let svc: TestService;
let offsetMs = 0;
let call: ReturnType<typeof managementCaller>;
let login: Awaited<ReturnType<typeof loginClient>>;
const OLD_PASSWORD = 'violet-harbour-31-kettle';
const NEW_PASSWORD = 'amber-lantern-77-quarry';
let oldHash: string;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + offsetMs) });
  call = managementCaller(svc.url, await svc.managementToken());
  login = await loginClient(svc, ['password', 'refresh_token']);
  oldHash = await hashPassword(OLD_PASSWORD);
});
afterAll(async () => svc?.stop());

const newUser = () => putUser(svc.stack.runtime, { password_hash: oldHash, username: `u${Math.random().toString(36).slice(2, 10)}` });
const create = (kind: 'password-change' | 'email-verification', body: Record<string, unknown>) =>
  call('POST', `/tickets/${kind}`, { body });

async function page(url: string, form?: Record<string, string>) {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) } : {}),
  });
  return { status: res.status, location: res.headers.get('location'), type: res.headers.get('content-type'), html: await res.text() };
}

const passwordLogin = (username: string, password: string) =>
  tokenRequest(svc, login.auth, 'password', { username, password, scope: 'openid offline_access' });

describe('POST /identity/v1/tickets/... (docs/contract.md §6)', () => {
  it('201 {id, ticket, expires_at}: ticket is the page URL, 5 days by default, no-store', async () => {
    const user = await newUser();
    const before = Date.now() + offsetMs;
    const res = await create('password-change', { user_id: user.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'id', 'ticket']);
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(res.body.ticket).toMatch(new RegExp(`^${svc.url}/tickets/[A-Za-z0-9_-]{43}$`));
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(432_000_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(432_000_000 + 5000);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const short = await create('email-verification', { user_id: user.id, ttl_sec: 60 });
    expect(Date.parse(short.body.expires_at) - before).toBeLessThanOrEqual(65_000);
  });

  it('needs create:tickets', async () => {
    const user = await newUser();
    const weak = managementCaller(svc.url, await svc.managementToken('read:users'));
    const res = await weak('POST', '/tickets/password-change', { body: { user_id: user.id } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    const none = await fetch(`${svc.url}/identity/v1/tickets/email-verification`, { method: 'POST' });
    expect(none.status).toBe(401);
  });

  it.each([
    [{}, 'body.user_id'],
    [{ user_id: 'nope' }, 'body.user_id'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', ttl_sec: 0 }, 'body.ttl_sec'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', ttl_sec: 2_592_001 }, 'body.ttl_sec'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', ttl_sec: '60' }, 'body.ttl_sec'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', extra: 1 }, 'body.extra'],
  ])('a bad body is 400 naming the field: %j', async (body, field) => {
    const res = await create('password-change', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('result_url must be https (or loopback http) without user info or fragment: 400 body.result_url, nothing made', async () => {
    const user = await newUser();
    for (const url of ['javascript:alert(1)', 'http://evil.example/', 'https://a@evil.example/', 'https://app.example/#x', '/relative']) {
      const res = await create('password-change', { user_id: user.id, result_url: url });
      expect(res.status, url).toBe(400);
      expect(res.body.message).toContain('body.result_url');
    }
  });

  it('an unknown user or client is 404; a user without email cannot get an email-verification ticket', async () => {
    expect((await create('password-change', { user_id: '0192c2e1-0000-7000-8000-000000000000' })).status).toBe(404);
    const user = await newUser();
    expect((await create('password-change', { user_id: user.id, client_id: '0192c2e1-0000-7000-8000-000000000000' })).status).toBe(404);
    expect((await create('password-change', { user_id: user.id, client_id: login.clientId })).status).toBe(201);
    const phoneOnly = await putUser(svc.stack.runtime, { email: undefined, phone_number: '+15550001111' });
    const res = await create('email-verification', { user_id: phoneOnly.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('body.user_id');
  });
});

describe('the password-change ticket page over HTTP', () => {
  it('form → refused password keeps the ticket → new password set, 303 to result_url, refresh tokens revoked; the link then shows an error without redirect', async () => {
    const user = await newUser();
    const before = await passwordLogin(user.username!, OLD_PASSWORD);
    expect(before.status).toBe(200);
    const refresh = before.body.refresh_token as string;
    const { body } = await create('password-change', { user_id: user.id, result_url: 'https://app.example/done?x=1' });

    const form = await page(body.ticket);
    expect(form.status).toBe(200);
    expect(form.type).toContain('text/html');
    expect(form.html).toContain('<label for="password">');
    expect(form.html).toContain('name="password" type="password" autocomplete="new-password"');
    const csrf = csrfOf(form.html);

    const noCsrf = await page(body.ticket, { password: NEW_PASSWORD });
    expect(noCsrf.status).toBe(400);
    expect(noCsrf.location).toBeNull();
    const wrongCsrf = await page(body.ticket, { password: NEW_PASSWORD, csrf_token: `${csrf.slice(0, -2)}AA` });
    expect(wrongCsrf.status).toBe(400);
    const weak = await page(body.ticket, { password: 'short', csrf_token: csrf });
    expect(weak.status).toBe(400);
    expect(weak.html).toContain('role="alert"');
    expect(weak.html).toContain('at least 8 characters');
    expect(weak.location).toBeNull();
    expect((await passwordLogin(user.username!, OLD_PASSWORD)).status).toBe(200); // nothing changed yet

    const ok = await page(body.ticket, { password: NEW_PASSWORD, csrf_token: csrf });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('https://app.example/done?x=1');
    expect((await passwordLogin(user.username!, OLD_PASSWORD)).status).toBe(400);
    expect((await passwordLogin(user.username!, NEW_PASSWORD)).status).toBe(200);
    const refreshed = await tokenRequest(svc, login.auth, 'refresh_token', { refresh_token: refresh });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');

    const again = await page(body.ticket, { password: 'another-fine-password-9', csrf_token: csrf });
    expect(again.status).toBe(400);
    expect(again.location).toBeNull();
    expect(again.html).toContain('already been used');
    expect((await page(body.ticket)).status).toBe(400);
    expect((await passwordLogin(user.username!, NEW_PASSWORD)).status).toBe(200);
  });

  it('an expired ticket shows the error page and does not redirect', async () => {
    const user = await newUser();
    const { body } = await create('password-change', { user_id: user.id, ttl_sec: 60, result_url: 'https://app.example/done' });
    const csrf = csrfOf((await page(body.ticket)).html);
    offsetMs += 61_000;
    const res = await page(body.ticket, { password: NEW_PASSWORD, csrf_token: csrf });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.html).toContain('expired');
    expect((await passwordLogin(user.username!, OLD_PASSWORD)).status).toBe(200);
  });

  it('20 parallel posts of one ticket: one changes the password, the others see the used page', async () => {
    const user = await newUser();
    const { body } = await create('password-change', { user_id: user.id });
    const csrf = csrfOf((await page(body.ticket)).html);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => page(body.ticket, { password: `parallel-password-${i}-zebra`, csrf_token: csrf })),
    );
    expect(results.filter((r) => r.status === 200 && r.html.includes('Password changed'))).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.html.includes('already been used'))).toHaveLength(19);
  });

  it('an email-verification ticket made here verifies the address and redirects to result_url', async () => {
    const user = await putUser(svc.stack.runtime, { email_verified: false });
    const { body } = await create('email-verification', { user_id: user.id, result_url: 'http://127.0.0.1:9/verified' });
    const csrf = csrfOf((await page(body.ticket)).html);
    const res = await page(body.ticket, { csrf_token: csrf });
    expect(res.status).toBe(303);
    expect(res.location).toBe('http://127.0.0.1:9/verified');
    const read = await call('GET', `/users/${user.id}`);
    expect(read.body.email_verified).toBe(true);
  });

  it("reflected values are escaped: a <script> in the user's email shows as text on the verification page", async () => {
    const user = await putUser(svc.stack.runtime, { email: '"><script>alert(1)</script>@example.com', email_verified: false });
    const { body } = await create('email-verification', { user_id: user.id });
    const form = await page(body.ticket);
    expect(form.html).not.toContain('<script>alert(1)</script>');
    expect(form.html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@example.com');
  });
});
