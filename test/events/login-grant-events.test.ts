import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { base32Decode, hotp, totp, totpStep } from '#shared/crypto/totp.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { commandsDuring, eventsOf, expectEvent, expectNoSecretStored, TEST_AGENT } from '../support/events/flow-events.ts';
import { INVALID_CREDENTIALS, loginClient, storedItem } from '../support/oauth/login-grants.ts';
import { userToken } from '../support/oauth/user-tokens.ts';
import { captureStdout } from '../support/service/capture-stdout.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';
import { storedEvents } from '../support/store/stored-events.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The sign-in events of the `password` and `otp` grants (docs/events.md "Recording"), end to end
 * over HTTP against DynamoDB Local: a success's events ride on the login's own write (counted: no
 * call more than the login made without them), a failure's are one separate write that never
 * changes the answer. The service's clock moves forward (`later`) to end a lockout.
 */
let svc: TestService;
let offsetMs = 0;
let auth: string;
let clientId: string;
const PASSWORD = 'amber-lantern-47-quill';
let passwordHash: string;

beforeAll(async () => {
  // Metrics published at the end of every invocation: a test reads them from stdout.
  svc = await startTestService({
    now: () => new Date(Date.now() + offsetMs),
    env: { METRICS_PUBLISH_SECONDS: '0', POWERTOOLS_METRICS_NAMESPACE: 'IdentityService/test' },
  });
  ({ clientId, auth } = await loginClient(svc, ['password', 'otp', 'refresh_token']));
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(async () => svc?.stop());

const runtime = () => svc.stack.runtime;
const retention = () => runtime().config.events.retentionDays;
const serviceNow = () => new Date(Date.now() + offsetMs);
const later = (seconds: number) => {
  offsetMs += seconds * 1000;
};
const newUser = (fields: Partial<UserRecord> = {}) => {
  const n = Math.random().toString(36).slice(2, 10);
  return putUser(runtime(), { email: `grant.${n}@example.com`, username: `grant_${n}`, password_hash: passwordHash, ...fields });
};

async function token(grant_type: 'password' | 'otp', params: Record<string, string>) {
  const res = await fetch(`${svc.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth, 'user-agent': TEST_AGENT },
    body: new URLSearchParams({ grant_type, ...params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

/** A user made through the Users API with an authenticator enrolled through it (its secret, shown once). */
async function enrolledUser() {
  const call = managementCaller(svc.url, await svc.managementToken());
  const username = `mfa_${Math.random().toString(36).slice(2, 10)}`;
  const created = await call('POST', '/users', { body: { username, password: PASSWORD } });
  expect(created.status).toBe(201);
  const id: string = created.body.id;
  // As the user (its own token and password): the API shows a secret to nobody else.
  const own = await userToken(runtime(), created.body, { clientId: svc.clientId, aud: svc.managementAudience, scope: '' });
  const enrolled = await call('POST', `/users/${id}/otp`, { token: own, body: { password: PASSWORD } });
  expect(enrolled.status).toBe(201);
  return { id, username, secret: base32Decode(enrolled.body.secret)! };
}
/** A code no step of the accepted window (one step either way) has. */
const wrongCode = (secret: Buffer) => {
  const valid = new Set([-1, 0, 1].map((d) => hotp(secret, totpStep(serviceNow()) + d)));
  for (let i = 0; ; i++) {
    const code = String(i).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
};

/** No event item holds a value that is one of these 6-digit codes (digits alone appear in ids and times). */
async function expectNoCode(tenantId: string, codes: string[]) {
  const values = (await storedEvents(runtime(), tenantId)).flatMap((e) => JSON.stringify(e).match(/"[^"]*"/g) ?? []);
  for (const code of codes) expect(values).not.toContain(`"${code}"`);
}

/** The sum of `metric` over the CloudWatch EMF lines of `stdout`. */
function metricTotal(stdout: string, metric: string): number {
  let total = 0;
  for (const line of stdout.split('\n').filter((l) => l.includes('"_aws"'))) {
    const emf = JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } };
    if (emf._aws.CloudWatchMetrics.some((d) => d.Metrics.some((m) => m.Name === metric)))
      total += [emf[metric]].flat().reduce((a: number, b) => a + Number(b), 0);
  }
  return total;
}

describe('login.succeeded (password and otp grants)', () => {
  it('the password grant: one event, folded into the login write; no password anywhere in it', async () => {
    const user = await newUser();
    const res = await token('password', { username: user.username!, password: PASSWORD, scope: 'openid' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), id_token: expect.any(String) });
    expect(await storedItem(svc, keys.user(user.id))).toMatchObject({ logins_count: 1 });
    const events = await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id);
    expect(events).toHaveLength(1);
    expectEvent(
      events[0],
      {
        type: 'login.succeeded',
        tenant_id: user.tenant_id,
        client_id: clientId,
        user_id: user.id,
        details: { method: 'password_grant', amr: ['pwd'] },
      },
      retention(),
    );
    expect((await storedEvents(runtime(), user.tenant_id)).filter((e) => e.user_id === user.id)).toHaveLength(1);
    await expectNoSecretStored(runtime(), user.tenant_id, [PASSWORD, res.body.access_token, res.body.id_token]);
  });

  it('counted: a password-grant sign-in makes the calls it made without events, its login write one transaction with the event', async () => {
    const user = await newUser();
    // Warm: the client, keys and caches loaded by a first sign-in, as on a busy container.
    expect((await token('password', { username: user.username!, password: PASSWORD })).status).toBe(200);
    let status = 0;
    const calls = await commandsDuring(runtime(), async () => {
      status = (await token('password', { username: user.username!, password: PASSWORD })).status;
    });
    expect(status).toBe(200);
    // The login's calls without events: the marker read, the counting write, the login write (an
    // UpdateItemCommand). The event turns that write into a transaction of two items, no call
    // more (docs/benchmarks.md "Password grant: what it waits for"). Besides, the token path may
    // read the client again in one BatchGetItem as its 1 s record cache ages (token-reads.test.ts).
    expect(calls.filter((c) => c !== 'BatchGetItemCommand')).toEqual([
      'GetItemCommand',
      'UpdateItemCommand',
      'TransactWriteItemsCommand(2)',
    ]);
    expect(calls.filter((c) => c === 'BatchGetItemCommand').length).toBeLessThanOrEqual(1);
    expect(await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id)).toHaveLength(2);
  });

  it('the password grant with a code: mfa.succeeded and login.succeeded in the same write', async () => {
    const { id, username, secret } = await enrolledUser();
    const tenant = (await storedItem(svc, keys.user(id)))!.tenant_id as string;
    const code = totp(secret, serviceNow());
    const calls = await commandsDuring(runtime(), async () => {
      expect((await token('password', { username, password: PASSWORD, otp: code })).status).toBe(200);
    });
    expect(calls.filter((c) => c.startsWith('TransactWriteItemsCommand'))).toEqual(['TransactWriteItemsCommand(3)']);
    const mfa = await eventsOf(runtime(), tenant, 'mfa.succeeded', id);
    expectEvent(
      mfa[0],
      { type: 'mfa.succeeded', tenant_id: tenant, client_id: clientId, user_id: id, details: { method: 'otp' } },
      retention(),
    );
    const login = (await eventsOf(runtime(), tenant, 'login.succeeded', id)).at(-1);
    expectEvent(
      login,
      {
        type: 'login.succeeded',
        tenant_id: tenant,
        client_id: clientId,
        user_id: id,
        details: { method: 'password_grant', amr: ['pwd', 'otp', 'mfa'] },
      },
      retention(),
    );
    expect(mfa[0]!.occurred_at).toBe(login!.occurred_at);

    // A wrong code after the right password: mfa.failed, one event, no login recorded.
    const wrong = wrongCode(secret);
    expect(await token('password', { username, password: PASSWORD, otp: wrong })).toMatchObject({ status: 400, body: INVALID_CREDENTIALS });
    const failed = await eventsOf(runtime(), tenant, 'mfa.failed', id);
    expect(failed).toHaveLength(1);
    expectEvent(
      failed[0],
      { type: 'mfa.failed', tenant_id: tenant, client_id: clientId, user_id: id, reason: 'wrong_otp', details: { method: 'otp' } },
      retention(),
    );
    expect(await eventsOf(runtime(), tenant, 'login.failed', id)).toEqual([]);
    await expectNoSecretStored(runtime(), tenant, [PASSWORD]);
    await expectNoCode(tenant, [code, wrong]);
  });

  it('the otp grant: login.succeeded with amr otp; a wrong code is login.failed wrong_otp', async () => {
    const { id, username, secret } = await enrolledUser();
    const tenant = (await storedItem(svc, keys.user(id)))!.tenant_id as string;
    later(60); // a step the enrolment's own sign-in did not use
    const code = totp(secret, serviceNow());
    expect((await token('otp', { username, otp: code })).status).toBe(200);
    expectEvent(
      (await eventsOf(runtime(), tenant, 'login.succeeded', id)).at(-1),
      { type: 'login.succeeded', tenant_id: tenant, client_id: clientId, user_id: id, details: { method: 'otp_grant', amr: ['otp'] } },
      retention(),
    );
    const wrong = wrongCode(secret);
    expect(await token('otp', { username, otp: wrong })).toMatchObject({ status: 400, body: INVALID_CREDENTIALS });
    expectEvent(
      (await eventsOf(runtime(), tenant, 'login.failed', id))[0],
      { type: 'login.failed', tenant_id: tenant, client_id: clientId, user_id: id, reason: 'wrong_otp', details: { method: 'otp_grant' } },
      retention(),
    );
    await expectNoCode(tenant, [code, wrong]);
  });
});

describe('login.failed (one answer to the caller, a reason in the log)', () => {
  it('wrong password, blocked user, unknown login: the same 400; the reasons differ; an unknown login is never recorded', async () => {
    const user = await newUser();
    const blocked = await newUser({ blocked: true });
    const typed = `Typed-${Math.random().toString(36).slice(2)}-Secret-Looking`;
    const answers = [
      await token('password', { username: user.username!, password: `${PASSWORD}x` }),
      await token('password', { username: blocked.username!, password: PASSWORD }),
      await token('password', { username: typed, password: PASSWORD }),
    ];
    for (const a of answers) expect({ status: a.status, body: a.body }).toEqual({ status: 400, body: INVALID_CREDENTIALS });
    const base = { type: 'login.failed', tenant_id: user.tenant_id, client_id: clientId } as const;
    expectEvent(
      (await eventsOf(runtime(), user.tenant_id, 'login.failed', user.id))[0],
      { ...base, user_id: user.id, reason: 'wrong_password', details: { method: 'password_grant' } },
      retention(),
    );
    expectEvent(
      (await eventsOf(runtime(), user.tenant_id, 'login.failed', blocked.id))[0],
      { ...base, user_id: blocked.id, reason: 'blocked', details: { method: 'password_grant' } },
      retention(),
    );
    // The only unknown login of this file: no user id, and nothing else that names it.
    const unknown = (await storedEvents(runtime(), user.tenant_id, 'login.failed')).filter((e) => e.reason === 'unknown_user');
    expect(unknown).toHaveLength(1);
    expectEvent(unknown[0], { ...base, reason: 'unknown_user', details: { method: 'password_grant' } }, retention());
    // Neither the login as typed (people type passwords there) nor a password, in any event item.
    await expectNoSecretStored(runtime(), user.tenant_id, [typed, typed.toLowerCase(), PASSWORD]);
  });

  it('lockout: the tenth failure also starts a lockout; a refused attempt is locked; the next success lifts it', async () => {
    const user = await newUser();
    for (let i = 0; i < 10; i++)
      expect((await token('password', { username: user.username!, password: `wrong-${i}-pass` })).status).toBe(400);
    const started = await eventsOf(runtime(), user.tenant_id, 'lockout.started', user.id);
    expect(started).toHaveLength(1);
    expectEvent(started[0], { type: 'lockout.started', tenant_id: user.tenant_id, client_id: clientId, user_id: user.id }, retention());
    const failures = await eventsOf(runtime(), user.tenant_id, 'login.failed', user.id);
    expect(failures.map((e) => e.reason)).toEqual(Array(10).fill('wrong_password'));
    // The lockout started with the tenth failure, not before.
    expect(started[0]!.occurred_at >= failures[9]!.occurred_at).toBe(true);

    const refused = await token('password', { username: user.username!, password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toEqual(expect.stringMatching(/^\d+$/));
    const locked = (await eventsOf(runtime(), user.tenant_id, 'login.failed', user.id)).at(-1);
    expectEvent(
      locked,
      {
        type: 'login.failed',
        tenant_id: user.tenant_id,
        client_id: clientId,
        user_id: user.id,
        reason: 'locked',
        details: { method: 'password_grant' },
      },
      retention(),
    );

    later(901);
    expect((await token('password', { username: user.username!, password: PASSWORD })).status).toBe(200);
    const lifted = await eventsOf(runtime(), user.tenant_id, 'lockout.lifted', user.id);
    expect(lifted).toHaveLength(1);
    expectEvent(lifted[0], { type: 'lockout.lifted', tenant_id: user.tenant_id, client_id: clientId, user_id: user.id }, retention());
    expect((await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id))[0]!.occurred_at).toBe(lifted[0]!.occurred_at);
    expect(await storedItem(svc, keys.user(user.id))).not.toHaveProperty('login_failures');
    // A later success clears no lockout: no second lockout.lifted.
    expect((await token('password', { username: user.username!, password: PASSWORD })).status).toBe(200);
    expect(await eventsOf(runtime(), user.tenant_id, 'lockout.lifted', user.id)).toHaveLength(1);
    expect(await eventsOf(runtime(), user.tenant_id, 'lockout.started', user.id)).toHaveLength(1);
  });

  it("a failure's event write that fails changes nothing for the caller: the same 400, the attempt counted, the metrics count", async () => {
    const user = await newUser();
    const db = runtime().db;
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const item = (args.input as { Item?: { type?: string } }).Item;
        if (context.commandName === 'PutItemCommand' && item?.type === 'Event') {
          throw Object.assign(new Error('injected'), { name: 'InternalServerError', $fault: 'server' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'failEventPuts' },
    );
    let res: Awaited<ReturnType<typeof token>> | undefined;
    let lines: string[] = [];
    try {
      lines = await captureStdout(async () => {
        res = await token('password', { username: user.username!, password: 'wrong-password-9' });
      });
    } finally {
      db.middlewareStack.remove('failEventPuts');
    }
    expect({ status: res!.status, body: res!.body }).toEqual({ status: 400, body: INVALID_CREDENTIALS });
    expect(await storedItem(svc, keys.user(user.id))).toMatchObject({ login_failures: 1 });
    expect(await eventsOf(runtime(), user.tenant_id, 'login.failed', user.id)).toEqual([]);
    const out = lines.join('');
    expect(out).not.toContain('wrong-password-9');
    expect(metricTotal(out, 'LoginsFailed')).toBe(1);
    expect(metricTotal(out, 'EventsNotRecorded')).toBe(1);
    // The sign-in itself goes on: the next right password is a 200 with its event.
    expect((await token('password', { username: user.username!, password: PASSWORD })).status).toBe(200);
    expect(await eventsOf(runtime(), user.tenant_id, 'login.succeeded', user.id)).toHaveLength(1);
  });
});
