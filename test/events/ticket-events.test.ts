import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '#shared/crypto/totp.ts';
import { hiddenValue, shownSecret, type TicketsFixture, ticketsFixture } from '../support/browser/tickets-fixture.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { GOOD_PASSWORD } from '../support/management/users-fixture.ts';

/**
 * The ticket page's security events (docs/events.md "Catalogue") over HTTP: a password change
 * (`password.changed`) and a TOTP enrolment (`authenticator.enrolled`), by the user, via the
 * ticket. Each rides on its own write: a refused step records nothing, and of concurrent
 * confirmations only the one that enrols has an event. No password, secret, code or ticket link
 * is in any event.
 */
let fx: TicketsFixture;
beforeAll(async () => {
  fx = await ticketsFixture();
});
afterAll(async () => fx?.svc.stop());

const runtime = () => fx.svc.stack.runtime;
const NEW_PASSWORD = 'brand-New-Passphrase-8812';

/** The page as a browser without JavaScript uses it, with the test's user agent. */
async function page(url: string, form?: Record<string, string>) {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { 'user-agent': TEST_AGENT, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form) } : {}),
  });
  return { status: res.status, html: await res.text() };
}

describe('password.changed via a ticket', () => {
  it('the new password lands with one event by the user; a refused password records none', async () => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/password-change', { body: { user_id: user.id } });
    expect(made.status).toBe(201);
    const link = made.body.ticket as string;
    const csrf = hiddenValue((await page(link)).html, 'csrf_token');
    expect((await page(link, { csrf_token: csrf, password: 'short' })).status).toBe(400);
    expect(await eventsOf(runtime(), user.tenant_id, 'password.changed', user.id)).toEqual([]);

    const before = await fx.storedUser(user.id);
    const done = await page(link, { csrf_token: csrf, password: NEW_PASSWORD });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Password changed');
    const after = await fx.storedUser(user.id);
    expect(after!.password_hash).not.toBe(before!.password_hash);
    const events = await eventsOf(runtime(), user.tenant_id, 'password.changed', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'password.changed',
        tenant_id: user.tenant_id,
        user_id: user.id,
        actor: { sub: user.id },
        details: { via: 'ticket' },
      },
      runtime().config.events.retentionDays,
    );
    await expectNoSecretStored(runtime(), user.tenant_id, [
      NEW_PASSWORD,
      GOOD_PASSWORD,
      after!.password_hash as string,
      link.slice(link.lastIndexOf('/') + 1),
      csrf,
    ]);
    // The ticket is used: posting again changes nothing and records nothing.
    expect((await page(link, { csrf_token: csrf, password: `${NEW_PASSWORD}x` })).status).toBe(400);
    expect(await eventsOf(runtime(), user.tenant_id, 'password.changed', user.id)).toHaveLength(1);
  });
});

describe('authenticator.enrolled via a ticket (TOTP)', () => {
  it('a wrong code records nothing; of 6 concurrent right confirmations one enrols, with one event', async () => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id } });
    expect(made.status).toBe(201);
    const link = made.body.ticket as string;
    const csrf = hiddenValue((await page(link)).html, 'csrf_token');
    const secretPage = await page(link, { csrf_token: csrf, password: GOOD_PASSWORD });
    expect(secretPage.status).toBe(200);
    const key = shownSecret(secretPage.html)!;
    const form = { csrf_token: hiddenValue(secretPage.html, 'csrf_token'), enrolment: hiddenValue(secretPage.html, 'enrolment') };
    const code = totp(base32Decode(key)!, fx.clock.now());
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await page(link, { ...form, code: wrong })).status).toBe(400);
    expect(await eventsOf(runtime(), user.tenant_id, 'authenticator.enrolled', user.id)).toEqual([]);

    const results = await Promise.all(Array.from({ length: 6 }, () => page(link, { ...form, code })));
    expect(results.filter((r) => r.status === 200 && r.html.includes('Authenticator added'))).toHaveLength(1);
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(true);
    const events = await eventsOf(runtime(), user.tenant_id, 'authenticator.enrolled', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'authenticator.enrolled',
        tenant_id: user.tenant_id,
        user_id: user.id,
        actor: { sub: user.id },
        target: { type: 'authenticator', id: 'totp' },
        details: { kind: 'totp', via: 'ticket' },
      },
      runtime().config.events.retentionDays,
    );
    const otp = await fx.storedOtp(user.id);
    await expectNoSecretStored(runtime(), user.tenant_id, [key, code, GOOD_PASSWORD, otp!.secret_sealed as string, form.enrolment]);
  });
});
