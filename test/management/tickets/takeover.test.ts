import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketsRepository } from '#shared/store/sessions/tickets-repository.ts';
import { hiddenValue, type TicketsFixture, ticketsFixture } from '../../support/browser/tickets-fixture.ts';
import { DEFAULT_TENANT } from '../../support/management/clients-fixture.ts';
import { GOOD_PASSWORD } from '../../support/management/users-fixture.ts';

/**
 * No takeover, checked when a ticket is USED as well as when it is made (docs/security.md
 * "Tickets and authenticators"): a helpdesk client (`create:tickets` and user scopes, no
 * administrator's scope) makes a credential ticket for a plain user; the user is then made an
 * administrator; the link, which lives up to 30 days, must not hand the helpdesk the
 * administrator's scopes. Over HTTP against DynamoDB Local.
 */
let fx: TicketsFixture;
beforeAll(async () => {
  fx = await ticketsFixture();
});
afterAll(async () => fx?.svc.stop());

const NEW_PASSWORD = 'amber-lantern-77-quarry';
const ADMIN_SCOPES = ['read:clients', 'update:clients', 'delete:clients'];

describe('POST /identity/v1/tickets/otp-enrollment', () => {
  it('201 {id, ticket, expires_at}, no-store, like the other tickets; the ticket keeps its maker and its scopes', async () => {
    const user = await fx.plainUser();
    const res = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id, ttl_sec: 600 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'id', 'ticket']);
    expect(res.body.ticket).toMatch(new RegExp(`^${fx.svc.url}/tickets/[A-Za-z0-9_-]{43}$`));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await fx.storedTicket(res.body.ticket)).toMatchObject({
      kind: 'otp_enrollment',
      user_id: user.id,
      created_by: fx.helpdeskClientId,
      creator_scopes: ['create:tickets', 'read:users', 'update:users'],
    });
  });

  it('needs create:tickets; a user holding more than the caller is 403 insufficient_scope (no takeover), nothing made', async () => {
    const user = await fx.plainUser();
    const weak = await fx.call('POST', '/tickets/otp-enrollment', {
      body: { user_id: user.id },
      token: await fx.svc.managementToken('read:users'),
    });
    expect(weak.status).toBe(403);
    expect(weak.body.code).toBe('insufficient_scope');
    await fx.promote(user.id, ['read:clients']);
    const res = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.body.message).toContain('read:clients');
  });

  it.each([
    [{}, 'body.user_id'],
    [{ user_id: 'nope' }, 'body.user_id'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', ttl_sec: 2_592_001 }, 'body.ttl_sec'],
    [{ user_id: '0192c2e1-0000-7000-8000-000000000000', extra: 1 }, 'body.extra'],
  ])('a bad body is 400 naming the field: %j', async (body, field) => {
    const res = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });
});

describe('a credential ticket re-checks no takeover when it is used', () => {
  it('password change: made for a plain user, the user promoted since → refused page, password unchanged, ticket not used', async () => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/password-change', {
      body: { user_id: user.id, result_url: 'https://app.example/done' },
    });
    expect(made.status).toBe(201);
    const form = await fx.page(made.body.ticket);
    expect(form.status).toBe(200);
    const csrf = hiddenValue(form.html, 'csrf_token');

    await fx.promote(user.id, ADMIN_SCOPES);
    const refused = await fx.page(made.body.ticket, { csrf_token: csrf, password: NEW_PASSWORD });
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
    expect(refused.html).toContain('This link can no longer be used. Ask for a new one.');
    expect(refused.html).not.toContain('name="password"');
    const shown = await fx.page(made.body.ticket);
    expect(shown.status).toBe(400);
    expect(shown.html).toContain('can no longer be used');

    expect((await fx.passwordGrant(user.username, NEW_PASSWORD)).status).toBe(400);
    expect((await fx.passwordGrant(user.username, GOOD_PASSWORD)).status).toBe(200);
    const stored = await fx.storedTicket(made.body.ticket);
    expect(stored).not.toHaveProperty('used_at');
    expect(stored?.creator_scopes).toEqual(['create:tickets', 'read:users', 'update:users']);

    // The rule holds again once the user holds nothing the maker did not: the link works then.
    await fx.demote(user.id, ADMIN_SCOPES);
    const ok = await fx.page(made.body.ticket, { csrf_token: csrf, password: NEW_PASSWORD });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('https://app.example/done');
    expect((await fx.passwordGrant(user.username, NEW_PASSWORD)).status).toBe(200);
  });

  it('a promotion to scopes the maker holds too changes nothing: the ticket works', async () => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/password-change', { body: { user_id: user.id } });
    const csrf = hiddenValue((await fx.page(made.body.ticket)).html, 'csrf_token');
    await fx.promote(user.id, ['read:users']);
    const ok = await fx.page(made.body.ticket, { csrf_token: csrf, password: NEW_PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.html).toContain('Password changed');
  });

  it('authenticator enrolment: the user promoted since → the page refuses before the password step, nothing is kept', async () => {
    const user = await fx.plainUser();
    const made = await fx.helpdesk('POST', '/tickets/otp-enrollment', { body: { user_id: user.id } });
    const csrf = hiddenValue((await fx.page(made.body.ticket)).html, 'csrf_token');
    await fx.promote(user.id, ADMIN_SCOPES);
    expect((await fx.page(made.body.ticket)).status).toBe(400);
    const refused = await fx.page(made.body.ticket, { csrf_token: csrf, password: GOOD_PASSWORD });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('can no longer be used');
    expect(refused.html).not.toContain('otp-secret');
    const stored = await fx.storedTicket(made.body.ticket);
    expect(stored).not.toHaveProperty('pending_otp_sealed');
    expect(stored).not.toHaveProperty('used_at');
    expect((await fx.storedUser(user.id))?.otp_enrolled).toBe(false);
    expect(await fx.storedOtp(user.id)).toBeUndefined();
  });

  it('a ticket stored without its maker\u2019s scopes (made before they were kept) works only for a user holding no management scope', async () => {
    const { runtime } = fx.svc.stack;
    const tickets = ticketsRepository(runtime.db, runtime.config.tableName, runtime.now);
    const legacy = async (userId: string) => {
      const { value } = await tickets.create({ kind: 'password_change', userId, tenantId: DEFAULT_TENANT, ttlSeconds: 600 });
      return `${fx.svc.url}/tickets/${value}`;
    };
    const plain = await fx.plainUser();
    const plainLink = await legacy(plain.id);
    const ok = await fx.page(plainLink, { csrf_token: hiddenValue((await fx.page(plainLink)).html, 'csrf_token'), password: NEW_PASSWORD });
    expect(ok.status).toBe(200);
    expect((await fx.passwordGrant(plain.username, NEW_PASSWORD)).status).toBe(200);

    const admin = await fx.plainUser();
    await fx.promote(admin.id, ['read:users']);
    const adminLink = await legacy(admin.id);
    expect((await fx.page(adminLink)).status).toBe(400);
    expect((await fx.passwordGrant(admin.username, GOOD_PASSWORD)).status).toBe(200);
  });
});
