import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID as DEFAULT_TENANT } from '#shared/records/tenant-record.ts';
import { csrfOf, type SignupService, startSignupService } from '../support/oauth/signup.ts';
import { basicAuth } from '../support/service/local-service.ts';
import { createTenant } from '../support/service/management-api.ts';

/**
 * The registration and ticket page attacked the way an attacker would (docs/contract.md §7.4, §7.8,
 * §8): reflected markup, trust fields, replay, a ticket of another tenant, CSRF, open redirects
 * and a changed address (secrets in logs: registration-logs.test.ts). Each attempt stays as a test.
 */
let s: SignupService;
let svc: SignupService['svc'];

beforeAll(async () => {
  s = await startSignupService();
  svc = s.svc;
});
afterAll(async () => svc?.stop());

const repos = () => ({ users: s.users(), tickets: s.tickets() });
const register = (body: Record<string, unknown>, headers: Record<string, string> = {}) => s.register(body, headers);
const linkFor = (to: string) => s.linkFor(to);
const confirm = (link: string, fields: Record<string, string>) =>
  fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
/** A live email-verification ticket for `user`, made as registration makes one (plus what the test needs). */
const ticketFor = (
  user: { id: string; tenant_id: string; email?: string | undefined },
  extra: { tenantId?: string; resultUrl?: string; ttlSeconds?: number } = {},
) =>
  repos().tickets.create({
    kind: 'email_verification',
    userId: user.id,
    tenantId: extra.tenantId ?? user.tenant_id,
    email: user.email,
    ttlSeconds: extra.ttlSeconds ?? 600,
    ...(extra.resultUrl ? { resultUrl: extra.resultUrl } : {}),
  });
const ticketValue = (link: string) => link.slice(link.lastIndexOf('/') + 1);

describe('registration refuses what a client may not set (docs/users.md "Registration and email")', () => {
  it.each([
    ['email_verified', true, /^body\.email_verified: cannot be set at registration/],
    ['phone_verified', true, /^body\.phone_verified: cannot be set/],
    ['phone_number', '+14155550100', /^body\.phone_number: cannot be set/],
    ['app_metadata', [{ key: 'role', value: 'admin' }], /^body\.app_metadata: cannot be set/],
    ['blocked', false, /^body\.blocked: cannot be set/],
    ['tenant_id', '00000000-0000-4000-8000-000000000001', /^body\.tenant_id: cannot be set/],
    ['id', '00000000-0000-4000-8000-000000000002', /^body\.id: cannot be set/],
    ['locale', 'en', /^body\.locale: unknown field/],
  ])('%s → 400 naming it, and no user, no mail', async (field, value, message) => {
    const email = `trust-${field}@example.com`;
    const res = await register({ email, [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(message) });
    expect(await repos().users.findIdByLogin(DEFAULT_TENANT, 'email', email)).toBeUndefined();
    expect((await s.outbox()).filter((m) => m.to === email)).toEqual([]);
  });

  it('missing email, a weak password, a taken email, bad client credentials', async () => {
    expect((await register({ email: undefined })).body.message).toMatch(/^body\.email: is required/);
    const weak = await register({ email: 'weak@example.com', password: 'password123' });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/^body\.password: is too common/);
    const same = await register({ email: 'same@example.com', password: 'same@example.com' });
    expect(same.body.message).toMatch(/^body\.password: must not be the email address/);
    expect((await register({ email: 'taken@example.com' })).status).toBe(201);
    const taken = await register({ email: 'TAKEN@example.com' });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/^body\.email: /);
    const wrong = await register({ email: 'w@example.com', client_id: svc.clientId }, { authorization: basicAuth(svc.clientId, 'wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('invalid_client');
    // A confidential client without its secret is not a public client.
    const noSecret = await register({ email: 'n@example.com', client_id: svc.clientId });
    expect(noSecret.status).toBe(401);
    const nobody = await register({ email: 'x@example.com', client_id: undefined });
    expect(nobody.status).toBe(401);
  });
});

describe('the ticket page under attack (docs/contract.md §7.4, §7.8)', () => {
  it('markup in the registered address is shown as text on the page and in the mail, never as markup', async () => {
    const email = '<script>alert(1)</script>"onmouseover="x@example.com';
    const res = await register({ email, name: '<img src=x onerror=alert(1)>' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const link = await linkFor(email);
    const page = await (await fetch(link)).text();
    expect(page).not.toContain('<script>alert(1)');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=&quot;x@example.com');
    const mail = (await s.outbox()).find((m) => m.to === email)!;
    expect(mail.html).not.toContain('<script>');
    // The success page repeats the address: escaped there too.
    const done = await (await confirm(link, { csrf_token: csrfOf(page) })).text();
    expect(done).not.toContain('<script>alert(1)');
    expect(done).toContain('&lt;script&gt;');
  });

  it('CSRF: a post without the token, with a wrong one, or with the token of another ticket is refused and uses nothing', async () => {
    await register({ email: 'csrf-a@example.com' });
    await register({ email: 'csrf-b@example.com' });
    const a = await linkFor('csrf-a@example.com');
    const b = await linkFor('csrf-b@example.com');
    const tokenOfB = csrfOf(await (await fetch(b)).text());
    const attempts: Record<string, string>[] = [{}, { csrf_token: '' }, { csrf_token: 'x'.repeat(43) }, { csrf_token: tokenOfB }];
    for (const fields of attempts) {
      const res = await confirm(a, fields);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('could not be checked');
    }
    expect((await repos().tickets.find(ticketValue(a))).state).toBe('valid');
    const id = await repos().users.findIdByLogin(DEFAULT_TENANT, 'email', 'csrf-a@example.com');
    expect((await repos().users.get(id!))?.email_verified).toBe(false);
  });

  it('replay: 10 parallel confirmations verify once; the rest, and any later GET, are the "used" page without a redirect', async () => {
    await register({ email: 'replay@example.com' });
    const link = await linkFor('replay@example.com');
    const csrf = csrfOf(await (await fetch(link)).text());
    const answers = await Promise.all(Array.from({ length: 10 }, () => confirm(link, { csrf_token: csrf })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(400)]);
    for (const a of answers) expect(a.headers.get('location')).toBeNull();
    expect((await fetch(link)).status).toBe(400);
  });

  it('unknown, malformed and expired tickets: 404 / 404 / 400 HTML pages', async () => {
    for (const bad of ['A'.repeat(43), 'short', '%3Cscript%3E', `${'A'.repeat(42)}%00`]) {
      const res = await fetch(`${svc.url}/tickets/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const text = await res.text();
      expect(text).toContain('This link is not valid');
      expect(text).not.toContain('<script>');
      expect((await confirm(`${svc.url}/tickets/${bad}`, { csrf_token: 'x' })).status).toBe(400); // CSRF first: it cannot match
    }
    const user = await repos().users.create({ tenant_id: DEFAULT_TENANT, email: 'expired@example.com' }, 'test');
    const { value } = await ticketFor(user, { ttlSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await fetch(`${svc.url}/tickets/${value}`);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('expired');
  });

  it('a ticket naming a user of another tenant verifies nothing', async () => {
    const { users } = repos();
    const otherTenant = await createTenant(svc.stack.runtime);
    const victim = await users.create({ tenant_id: otherTenant, email: 'victim@example.com' }, 'test');
    const { value } = await ticketFor(victim, { tenantId: DEFAULT_TENANT });
    const link = `${svc.url}/tickets/${value}`;
    const res = await confirm(link, { csrf_token: csrfOf(await (await fetch(link)).text()) });
    expect(res.status).toBe(400);
    expect((await users.get(victim.id))?.email_verified).toBe(false);
  });

  it('an address changed after the link was sent is not verified by it', async () => {
    const res = await register({ email: 'old@example.com' });
    const link = await linkFor('old@example.com');
    const csrf = csrfOf(await (await fetch(link)).text());
    await repos().users.update(res.body.id, { email: 'new@example.com' }, 'test');
    const answer = await confirm(link, { csrf_token: csrf });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('no longer uses');
    expect((await repos().users.get(res.body.id))?.email_verified).toBe(false);
  });

  it('result_url: success redirects (303) there, the page allows that origin as a form target; a used ticket never redirects', async () => {
    const { users } = repos();
    const user = await users.create({ tenant_id: DEFAULT_TENANT, email: 'redirect@example.com' }, 'test');
    const { value } = await ticketFor(user, { resultUrl: 'https://app.example.com/verified?from=ticket' });
    const link = `${svc.url}/tickets/${value}`;
    const page = await fetch(link);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example.com;");
    const csrf = csrfOf(await page.text());
    const first = await confirm(link, { csrf_token: csrf });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('https://app.example.com/verified?from=ticket');
    expect((await users.get(user.id))?.email_verified).toBe(true);
    const second = await confirm(link, { csrf_token: csrf });
    expect(second.status).toBe(400);
    expect(second.headers.get('location')).toBeNull();
    // And no ticket can carry an open redirect in the first place (tickets-repository.test.ts has the full list).
    await expect(ticketFor(user, { resultUrl: 'javascript:alert(1)' })).rejects.toThrow(/result_url/);
  });
});
