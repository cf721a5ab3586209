import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totp, totpStep } from '#shared/crypto/totp.ts';
import { hiddenValue, shownSecret, type TicketsFixture, ticketsFixture } from '../support/browser/tickets-fixture.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';

/**
 * The authenticator enrolment ticket over HTTP (docs/users.md "Enrolment ticket"): a manager makes
 * it, the user completes it: current password first (nothing secret before it), then the secret,
 * then a code from the app, which alone enrols it and uses the ticket. The person who made the
 * ticket holds its URL but not the password, so never sees the secret nor can try codes. The same
 * flow in Chromium: ticket-page-otp-browser.test.ts.
 */
let fx: TicketsFixture;
beforeAll(async () => {
  fx = await ticketsFixture();
});
afterAll(async () => fx?.svc.stop());

async function enrolmentTicket(extra: Record<string, unknown> = {}) {
  const user = await fx.plainUser();
  const made = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id, ...extra } });
  expect(made.status).toBe(201);
  return { user, link: made.body.ticket as string };
}

/** The password step: GET the form, post the password; the answer and its two tokens. */
async function passwordStep(link: string, password = GOOD_PASSWORD) {
  const csrf = hiddenValue((await fx.page(link)).html, 'csrf_token');
  const answer = await fx.page(link, { csrf_token: csrf, password });
  return { csrf, answer };
}

/** A code of `secret` that is not valid now (none of the three steps the service accepts). */
const wrongCode = (secret: Buffer) => {
  const valid = new Set([-1, 0, 1].map((d) => hotp(secret, totpStep(fx.clock.now()) + d)));
  return ['000000', '111111', '222222'].find((c) => !valid.has(c))!;
};

describe('the otp-enrollment ticket page', () => {
  it('GET shows the password step only: a labelled current-password field and csrf_token, nothing secret', async () => {
    const { link } = await enrolmentTicket();
    const page = await fx.page(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="password">Current password</label>');
    expect(page.html).toContain('autocomplete="current-password"');
    expect(hiddenValue(page.html, 'csrf_token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const secretish of ['otp-secret', 'otpauth', '<svg', 'name="code"', 'name="enrolment"'])
      expect(page.html).not.toContain(secretish);
  });

  it('the ticket maker without the password: a wrong one is refused and counted, no secret; a guessed code without the step token is refused', async () => {
    const { user, link } = await enrolmentTicket();
    const { csrf, answer } = await passwordStep(link, 'the-makers-guess-42');
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('That is not your current password.');
    expect(answer.html).not.toContain('otpauth');
    expect(shownSecret(answer.html)).toBeUndefined();
    expect((await fx.storedUser(user.id))?.login_failures).toBe(1);
    expect(await fx.storedTicket(link)).not.toHaveProperty('pending_otp_sealed');

    // Even once the user has a pending secret, the maker's code post (page csrf_token, no step token) is refused.
    const right = await passwordStep(link);
    expect(right.answer.status).toBe(200);
    const secret = base32Decode(shownSecret(right.answer.html)!)!;
    const guessed = await fx.page(link, { csrf_token: csrf, code: totp(secret, fx.clock.now()) });
    expect(guessed.status).toBe(400);
    expect(guessed.html).toContain('This step has expired');
    expect(shownSecret(guessed.html)).toBeUndefined();
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(false);
    expect(await fx.storedTicket(link)).not.toHaveProperty('used_at');
  });

  it('missing or wrong CSRF token: refused, nothing counted, nothing kept', async () => {
    const { user, link } = await enrolmentTicket();
    const csrf = hiddenValue((await fx.page(link)).html, 'csrf_token');
    const forms: Record<string, string>[] = [
      { password: GOOD_PASSWORD },
      { password: GOOD_PASSWORD, csrf_token: `${csrf.slice(0, -2)}AA` },
    ];
    for (const form of forms) {
      const res = await fx.page(link, form);
      expect(res.status).toBe(400);
      expect(res.html).toContain('Form expired');
      expect(shownSecret(res.html)).toBeUndefined();
    }
    expect(await fx.storedUser(user.id)).not.toHaveProperty('login_failures');
    expect(await fx.storedTicket(link)).not.toHaveProperty('pending_otp_sealed');
  });

  it('right password → the secret (grouped key, otpauth URI, QR as inline SVG), kept sealed on the ticket; a wrong code enrols nothing; the right one enrols, uses the ticket, and the otp grant works', async () => {
    const { user, link } = await enrolmentTicket({ result_url: 'https://app.example/mfa-done' });
    const { answer } = await passwordStep(link);
    expect(answer.status).toBe(200);
    const key = shownSecret(answer.html)!;
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    expect(answer.html).toMatch(/<code id="otp-secret">([A-Z2-7]{4} ){7}[A-Z2-7]{4}<\/code>/);
    expect(answer.html).toContain(`otpauth://totp/`);
    expect(answer.html).toContain(`secret=${key}`);
    expect(answer.html).toMatch(
      /<svg [^>]*viewBox="0 0 \d+ \d+"[^>]*role="img"[^>]*><rect [^>]*\/><path d="(M\d+ \d+h1v1h-1z)+" fill="#000"\/><\/svg>/,
    );
    expect(answer.html).toContain('<label for="code">');
    expect(await fx.storedUser(user.id)).not.toHaveProperty('login_failures');
    const ticket = await fx.storedTicket(link);
    expect(ticket?.pending_otp_sealed).toMatch(/^dk1\./);
    expect(JSON.stringify(ticket)).not.toContain(key);

    const secret = base32Decode(key)!;
    const step = hiddenValue(answer.html, 'enrolment');
    const csrf = hiddenValue(answer.html, 'csrf_token');
    const wrong = await fx.page(link, { csrf_token: csrf, enrolment: step, code: wrongCode(secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('That code is not right');
    expect(shownSecret(wrong.html)).toBe(key); // the same secret again, for the poster who saw it
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(false);
    expect(await fx.storedTicket(link)).not.toHaveProperty('used_at');

    const code = totp(secret, fx.clock.now());
    const ok = await fx.page(link, { csrf_token: csrf, enrolment: step, code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('https://app.example/mfa-done');
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(true);
    const otp = await fx.storedOtp(user.id);
    expect(otp?.enrolled_by).toBe(user.id);
    expect(otp?.last_step).toBe(totpStep(fx.clock.now())); // the confirming code is spent
    const used = await fx.storedTicket(link);
    expect(typeof used?.used_at).toBe('string');
    expect(used).not.toHaveProperty('pending_otp_sealed');

    expect((await fx.otpGrant(user.username, code)).status).toBe(400); // replay of the confirming code
    fx.clock.advance(30_000);
    const grant = await fx.otpGrant(user.username, totp(secret, fx.clock.now()));
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    expect(typeof grant.body.access_token).toBe('string');

    const again = await fx.page(link, { csrf_token: csrf, enrolment: step, code: totp(secret, fx.clock.now()) });
    expect(again.status).toBe(400);
    expect(again.html).toContain('already been used');
    expect(again.location).toBeNull();
  });

  it('two concurrent confirmations with the right code: one enrols, the other sees the used page', async () => {
    const { user, link } = await enrolmentTicket();
    const { answer } = await passwordStep(link);
    const form = {
      csrf_token: hiddenValue(answer.html, 'csrf_token'),
      enrolment: hiddenValue(answer.html, 'enrolment'),
      code: totp(base32Decode(shownSecret(answer.html)!)!, fx.clock.now()),
    };
    const results = await Promise.all(Array.from({ length: 6 }, () => fx.page(link, form)));
    expect(results.filter((r) => r.status === 200 && r.html.includes('Authenticator added'))).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.html.includes('already been used'))).toHaveLength(5);
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(true);
  });

  it('a second password step replaces the secret: the first one can no longer be confirmed', async () => {
    const { user, link } = await enrolmentTicket();
    const first = (await passwordStep(link)).answer;
    const second = (await passwordStep(link)).answer;
    expect(shownSecret(second.html)).not.toBe(shownSecret(first.html));
    const stale = await fx.page(link, {
      csrf_token: hiddenValue(first.html, 'csrf_token'),
      enrolment: hiddenValue(first.html, 'enrolment'),
      code: totp(base32Decode(shownSecret(first.html)!)!, fx.clock.now()),
    });
    expect(stale.status).toBe(400);
    expect(stale.html).toContain('This step has expired');
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(false);
  });

  it('the password step counts towards the lockout: after 10 wrong passwords the right one is 429 with Retry-After', async () => {
    const { user, link } = await enrolmentTicket();
    const csrf = hiddenValue((await fx.page(link)).html, 'csrf_token');
    for (let i = 0; i < 10; i++) expect((await fx.page(link, { csrf_token: csrf, password: `wrong-${i}-password` })).status).toBe(400);
    const locked = await fx.page(link, { csrf_token: csrf, password: GOOD_PASSWORD });
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(shownSecret(locked.html)).toBeUndefined();
    // The same count as the password grant's.
    expect((await fx.passwordGrant(user.username, GOOD_PASSWORD)).status).toBe(429);
  });

  it('a user without a password gets a page telling it to set one first; escaped output on the secret page', async () => {
    const bare = await fx.createUser();
    const made = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: bare.id } });
    const page = await fx.page(made.body.ticket);
    expect(page.status).toBe(400);
    expect(page.html).toContain('Set a password first');
    expect(page.html).not.toContain('name="password"');

    const marked = await fx.plainUser({ email: `"><script>alert(1)</script>@example.com` });
    const markedTicket = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: marked.id } });
    const { answer } = await passwordStep(markedTicket.body.ticket);
    expect(answer.status).toBe(200);
    expect(answer.html).not.toContain('<script>alert(1)</script>');
    expect(answer.html).not.toContain('"><script>');
  });
});
