import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { SIGNUP_PASSWORD, type SignupService, startSignupService } from '../support/oauth/signup.ts';
import { storedEvents } from '../support/store/stored-events.ts';

/**
 * A self-registration is a user created by a client (docs/events.md "Management writes"): one
 * `management.created` event with the client as actor, once the user is there to stay; a
 * registration that is refused records none.
 */
let s: SignupService;

beforeAll(async () => {
  s = await startSignupService();
});
afterAll(async () => s?.svc.stop());

const events = () => storedEvents(s.svc.stack.runtime, DEFAULT_TENANT_ID, 'management.created');

describe('POST /identity/v1/users/register records its event', () => {
  it('management.created: the client as actor, the new user as target and user, the field names sent, no value', async () => {
    const before = new Set((await events()).map((e) => e.id));
    const res = await s.register(
      { email: 'eve-event@example.com', name: 'Eve Secretname', user_metadata: { plan: 'metadata-value-9' } },
      { 'user-agent': 'signup-agent/2' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const added = (await events()).filter((e) => !before.has(e.id));
    expect(added).toHaveLength(1);
    const { id, occurred_at, request_id, ttl, ...rest } = added[0]!;
    expect(rest).toEqual({
      type: 'management.created',
      tenant_id: DEFAULT_TENANT_ID,
      client_id: s.publicClientId,
      user_id: res.body.id,
      actor: { sub: s.publicClientId, client_id: s.publicClientId },
      target: { type: 'user', id: res.body.id },
      changed_fields: ['email', 'name', 'password', 'user_metadata'],
      details: { route: 'POST /identity/v1/users/register' },
      user_agent: 'signup-agent/2',
      ...(rest.source_ip ? { source_ip: rest.source_ip } : {}),
    });
    expect(typeof request_id).toBe('string');
    expect(occurred_at <= new Date().toISOString()).toBe(true);
    for (const value of [SIGNUP_PASSWORD, 'eve-event@example.com', 'Eve Secretname', 'metadata-value-9']) {
      expect(JSON.stringify(added[0])).not.toContain(value);
    }
  });

  it('a refused registration (a weak password, an unknown client) records no event', async () => {
    const before = (await events()).length;
    const weak = await s.register({ email: 'weak@example.com', password: 'short' });
    const unknown = await s.register({ email: 'nobody@example.com', client_id: '0190a0b0-0000-7000-8000-00000000dead' });
    expect([weak.status, weak.body.code ?? weak.body.error, unknown.status]).toEqual([400, 'invalid_request', 401]);
    expect(await events()).toHaveLength(before);
  });
});
