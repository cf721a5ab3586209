import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { codeHash } from '#shared/store/sessions/authorization-codes-repository.ts';
import { refreshTokenHash } from '#shared/store/sessions/refresh-tokens-repository.ts';
import { seedSession } from '../support/browser/seed-session.ts';
import { eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { authorizeThrough, type FlowClient, flowClient, pkce, REDIRECT, responseParams } from '../support/oauth/authorize-flow.ts';
import { storedItem } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { storedEvents as storedEventsOf } from '../support/store/stored-events.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * `refresh_token.reused` and `authorization_code.reused` (docs/events.md "Catalogue"), end to end
 * over HTTP: each rides on the write that revokes the login's family, so it lands once per family
 * however many replays race, and a replay against a family already revoked records nothing.
 */
let svc: TestService;
let conf: FlowClient;
let other: FlowClient;

beforeAll(async () => {
  svc = await startTestService();
  conf = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token'] });
  other = await flowClient(svc, { grant_types: ['authorization_code', 'refresh_token'] });
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const retention = () => runtime().config.events.retentionDays;

async function token(params: Record<string, string>, c: FlowClient = conf) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: c.auth!, 'user-agent': TEST_AGENT },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** A user's code from /authorize (the pages' part recorded as login and consent record it). */
async function codeOf(c: FlowClient = conf) {
  const user = await putUser(runtime());
  const { verifier, challenge } = await pkce();
  const params = {
    client_id: c.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid offline_access',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const answer = await authorizeThrough(svc, params, await seedSession(runtime(), user), user);
  expect(answer.status, answer.body).toBe(303);
  return { user, code: responseParams(answer.location!).get('code')!, verifier };
}
const redeem = (code: string, verifier: string, c: FlowClient = conf) =>
  token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, c);

const invalidRefresh = { error: 'invalid_grant', error_description: 'body.refresh_token: is invalid, expired or revoked.' };

describe('refresh_token.reused', () => {
  it('a rotated token presented again: the family is revoked and one event names it, no token or hash', async () => {
    const { user, code, verifier } = await codeOf();
    const first = await redeem(code, verifier);
    expect(first.status).toBe(200);
    // The legitimate client rotates with openid-client; the old token then comes back.
    const second = await client.refreshTokenGrant(conf.config, first.body.refresh_token);
    const sid = (await storedItem(svc, keys.refreshToken(refreshTokenHash(first.body.refresh_token))))!.family_id as string;

    const replay = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect(replay).toMatchObject({ status: 400, body: invalidRefresh });
    expect(replay.headers.get('cache-control')).toBe('no-store');
    expect(await storedItem(svc, keys.refreshFamily(sid))).toMatchObject({ revoked: true, revoked_at: expect.any(String) });

    const events = await eventsOf(runtime(), user.tenant_id, 'refresh_token.reused', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'refresh_token.reused',
        tenant_id: user.tenant_id,
        client_id: conf.clientId,
        user_id: user.id,
        details: { family_id: sid },
      },
      retention(),
    );
    const hashes = [first.body.refresh_token, second.refresh_token!].map((t) => refreshTokenHash(t));
    await expectNoSecretStored(runtime(), user.tenant_id, [first.body.refresh_token, second.refresh_token, ...hashes, code, verifier]);

    // The family is dead: its newest token is refused, and presenting the old one again writes nothing.
    expect(await token({ grant_type: 'refresh_token', refresh_token: second.refresh_token! })).toMatchObject({ status: 400 });
    expect(await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token })).toMatchObject({ status: 400 });
    expect(await eventsOf(runtime(), user.tenant_id, 'refresh_token.reused', user.id)).toHaveLength(1);
  });

  it('20 concurrent uses of one token: one rotation wins, the family is revoked once, and one event is stored', async () => {
    const { user, code, verifier } = await codeOf();
    const first = await redeem(code, verifier);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a).toMatchObject({ status: 400, body: invalidRefresh });
    const events = await eventsOf(runtime(), user.tenant_id, 'refresh_token.reused', user.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ client_id: conf.clientId, details: { family_id: expect.any(String) } });
  });

  it('an unknown token is no reuse: no event in the tenant', async () => {
    const tenant = (await putUser(runtime())).tenant_id;
    const before = (await storedEventsOfTenant(tenant, 'refresh_token.reused')).length;
    const made = 'A'.repeat(64);
    expect(await token({ grant_type: 'refresh_token', refresh_token: made })).toMatchObject({ status: 400, body: invalidRefresh });
    expect(await storedEventsOfTenant(tenant, 'refresh_token.reused')).toHaveLength(before);
  });
});

describe('authorization_code.reused', () => {
  it('a second redemption by its client revokes the family with one event; a third records nothing', async () => {
    const { user, code, verifier } = await codeOf();
    const first = await redeem(code, verifier);
    expect(first.status).toBe(200);
    const second = await redeem(code, verifier);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const sid = (await storedItem(svc, keys.authorizationCode(codeHash(code))))!.sid as string;
    expect(await storedItem(svc, keys.refreshFamily(sid))).toMatchObject({ revoked: true });

    const events = await eventsOf(runtime(), user.tenant_id, 'authorization_code.reused', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'authorization_code.reused',
        tenant_id: user.tenant_id,
        client_id: conf.clientId,
        user_id: user.id,
        details: { family_id: sid },
      },
      retention(),
    );
    await expectNoSecretStored(runtime(), user.tenant_id, [code, codeHash(code), verifier, first.body.refresh_token]);

    expect(await redeem(code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await eventsOf(runtime(), user.tenant_id, 'authorization_code.reused', user.id)).toHaveLength(1);
  });

  it('20 concurrent redemptions: one wins, and the losers revoke its family with exactly one event', async () => {
    const { user, code, verifier } = await codeOf();
    const answers = await Promise.all(Array.from({ length: 20 }, () => redeem(code, verifier)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(await eventsOf(runtime(), user.tenant_id, 'authorization_code.reused', user.id)).toHaveLength(1);
  });

  it('a used code shown by another client: the login stays, one event names that client as actor', async () => {
    const { user, code, verifier } = await codeOf();
    const first = await redeem(code, verifier);
    expect(first.status).toBe(200);
    expect(await redeem(code, verifier, other)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const sid = (await storedItem(svc, keys.authorizationCode(codeHash(code))))!.sid as string;
    expect((await storedItem(svc, keys.refreshFamily(sid)))?.revoked).toBe(false);
    const events = await eventsOf(runtime(), user.tenant_id, 'authorization_code.reused', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'authorization_code.reused',
        tenant_id: user.tenant_id,
        client_id: conf.clientId,
        user_id: user.id,
        actor: { sub: other.clientId, client_id: other.clientId },
        details: { family_id: sid },
      },
      retention(),
    );
  });

  it('a code never redeemed and presented with a wrong verifier is no reuse: no event', async () => {
    const { user, code } = await codeOf();
    expect(await redeem(code, 'x'.repeat(43))).toMatchObject({ status: 400 });
    expect(await storedEvents(user.tenant_id, user.id)).toEqual([]);
  });
});

const storedEvents = async (tenantId: string, userId: string) => [
  ...(await eventsOf(runtime(), tenantId, 'authorization_code.reused', userId)),
  ...(await eventsOf(runtime(), tenantId, 'refresh_token.reused', userId)),
];
const storedEventsOfTenant = (tenantId: string, type: 'refresh_token.reused') => storedEventsOf(runtime(), tenantId, type);
