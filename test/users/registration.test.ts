import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, SIGNUP_PASSWORD, type SignupService, startSignupService } from '../support/oauth/signup.ts';
import { basicAuth } from '../support/service/local-service.ts';

/**
 * Registration and email verification over HTTP (docs/contract.md §6 `/users/register`, §7.2, §7.5, §7.8;
 * docs/users.md "Registration and email"): the user is created unverified, the link arrives in the
 * local outbox, GET shows the page without using the ticket, POST verifies, a second use is refused.
 */
let s: SignupService;
let svc: SignupService['svc'];

beforeAll(async () => {
  s = await startSignupService();
  svc = s.svc;
});
afterAll(async () => svc?.stop());

const mailTo = async (to: string) => (await s.outbox()).filter((m) => m.to === to);
const storedUser = (id: string) => s.users().get(id);

describe('POST /identity/v1/users/register (docs/contract.md §6, §7.5)', () => {
  it('a confidential client registers a user: 201 User without password, unverified, in its tenant; one email with the link', async () => {
    const email = 'ada@example.com';
    const res = await s.register(
      { client_id: undefined, email, name: 'Ada Lovelace', username: 'ada', user_metadata: { plan: 'free' } },
      { authorization: basicAuth(svc.clientId, svc.clientSecret) },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      email,
      email_verified: false,
      name: 'Ada Lovelace',
      username: 'ada',
      user_metadata: { plan: 'free' },
    });
    expect(res.body).not.toHaveProperty('password');
    expect(res.body).not.toHaveProperty('password_hash');
    expect(res.body.created_by).toBe(svc.clientId);
    const stored = await storedUser(res.body.id);
    expect(stored?.email_verified).toBe(false);
    expect(stored?.password_hash).toMatch(/^\$argon2id\$/);

    const mails = await mailTo(email);
    expect(mails).toHaveLength(1);
    expect(Object.keys(mails[0]!).sort()).toEqual(['file', 'html', 'subject', 'text', 'to']);
    expect(mails[0]!.subject).toBe('Verify your email address');
    const link = await s.linkFor(email);
    expect(link.startsWith(`${svc.url}/tickets/`)).toBe(true);
    expect(mails[0]!.html).toContain(`href="${link}"`);
  });

  it('a public client sends client_id in the body (docs/contract.md §7.6); form bodies work too', async () => {
    const res = await fetch(`${svc.url}/identity/v1/users/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: s.publicClientId, email: 'grace@example.com', password: SIGNUP_PASSWORD }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.created_by).toBe(s.publicClientId);
    expect(await mailTo('grace@example.com')).toHaveLength(1);
  });

  it('the verification link: GET shows a form and changes nothing; POST verifies; a second use is an error page', async () => {
    const email = 'linus@example.com';
    const res = await s.register({ email });
    expect(res.status).toBe(201);
    const link = await s.linkFor(email);

    for (let i = 0; i < 3; i++) {
      // A link scanner fetching the page (again and again) does not use the ticket up.
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toMatch(
        /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
      );
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await page.text();
      expect(html).toContain('<form method="post">');
      expect(html).toContain(email);
      expect(csrfOf(html)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
    expect((await storedUser(res.body.id))?.email_verified).toBe(false);

    const csrf = csrfOf(await (await fetch(link)).text());
    const post = () =>
      fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: csrf }),
        redirect: 'manual',
      });
    const done = await post();
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Email address verified');
    expect((await storedUser(res.body.id))?.email_verified).toBe(true);

    const again = await post();
    expect(again.status).toBe(400);
    expect(again.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(again.headers.get('location')).toBeNull();
    expect(await again.text()).toContain('already been used');
    expect((await fetch(link)).status).toBe(400);
  });
});
