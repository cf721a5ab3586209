import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, TOTP_PERIOD_SECONDS, totp, totpStep } from '#shared/crypto/totp.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import type { Key } from '#shared/store/core/writes.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { INVALID_CREDENTIALS, loginClient, storedItem, tokenRequest } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The `otp` grant end to end (docs/contract.md §5.1, §7.3): TOTP codes of an enrolled authenticator, replay
 * refused (also in parallel), the user lockout and the authenticator's own 100-failure disable.
 * The service's clock is moved forward (`later`) instead of sleeping; codes are computed on it.
 */
let svc: TestService;
let offsetMs = 0;
let auth: string;
let clientId: string;
let config: client.Configuration;
const serviceNow = () => new Date(Date.now() + offsetMs);

beforeAll(async () => {
  svc = await startTestService({ now: serviceNow });
  ({ clientId, auth, config } = await loginClient(svc, ['otp']));
});
afterAll(async () => svc?.stop());

const later = (seconds: number) => {
  offsetMs += seconds * 1000;
};
/**
 * Moves the service's clock to just past the start of the next TOTP step, so a test that computes
 * codes relative to "now" has the whole 30 s step before the server's step moves under it.
 */
const toStepStart = () => {
  const intoStep = serviceNow().getTime() % (TOTP_PERIOD_SECONDS * 1000);
  offsetMs += TOTP_PERIOD_SECONDS * 1000 - intoStep + 100;
};
const otps = () => {
  const { runtime } = svc.stack;
  return otpRepository(runtime.db, runtime.config.tableName, runtime.now, runtime.secretBox, {
    maxFailures: runtime.config.login.otpMaxFailures,
  });
};
/** A user with an enrolled authenticator; `secret` is what the enrolment showed once. */
async function enrolledUser(fields: Partial<UserRecord> = {}) {
  const n = Math.random().toString(36).slice(2, 10);
  const user = await putUser(svc.stack.runtime, {
    username: `otp_${n}`,
    email: `otp.${n}@example.com`,
    ...fields,
  });
  const secret = base32Decode(await otps().enroll(user.id))!;
  return { user, secret };
}
/** A 6-digit code that is none of the accepted window's codes. */
const wrongCode = (secret: Buffer) => {
  const step = totpStep(serviceNow());
  const valid = new Set([-1, 0, 1].map((d) => hotp(secret, step + d)));
  for (let i = 0; ; i++) {
    const code = String(i).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
};
const stored = (key: Key) => storedItem(svc, key);
const token = (params: Record<string, string>) => tokenRequest(svc, auth, 'otp', params);
const INVALID = INVALID_CREDENTIALS;

describe('otp grant (docs/contract.md §5.1, §7.3)', () => {
  it('issues user tokens for the current code (openid-client, jose against our JWKS); the same code again is refused', async () => {
    const { user, secret } = await enrolledUser();
    const code = totp(secret, serviceNow());
    const tokens = await client.genericGrantRequest(config, 'otp', { username: user.username!, otp: code, scope: 'openid' });
    const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: svc.url, audience: `${svc.url}/userinfo`, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: user.id, client_id: clientId });
    expect((await jwtVerify(tokens.id_token!, jwks, { issuer: svc.url, audience: clientId })).payload.sub).toBe(user.id);
    expect((await stored(keys.user(user.id)))?.logins_count).toBe(1);
    expect((await stored(keys.userOtp(user.id)))?.last_step).toBe(totpStep(serviceNow()));

    const replay = await token({ username: user.username!, otp: code });
    expect(replay).toMatchObject({ status: 400, body: INVALID });
    // The previous step's code is older than the one accepted: refused too (RFC 6238 §5.2).
    expect((await token({ username: user.username!, otp: hotp(secret, totpStep(serviceNow()) - 1) })).body).toEqual(INVALID);
  });

  it('accepts one step of drift either way, not two', async () => {
    const { user, secret } = await enrolledUser();
    toStepStart();
    const step = totpStep(serviceNow());
    expect((await token({ username: user.username!, otp: hotp(secret, step + 2) })).body).toEqual(INVALID);
    expect((await token({ username: user.username!, otp: hotp(secret, step - 1) })).status).toBe(200);
    expect((await token({ username: user.username!, otp: hotp(secret, step + 1) })).status).toBe(200);
  });

  it('one code sent 8 times in parallel gets in exactly once', async () => {
    const { user, secret } = await enrolledUser();
    const code = totp(secret, serviceNow());
    const answers = await Promise.all(Array.from({ length: 8 }, () => token({ username: user.username!, otp: code })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body).toEqual(INVALID);
    expect((await stored(keys.user(user.id)))?.logins_count).toBe(1);
  });

  it('wrong code, unknown user, user without authenticator, blocked user with the right code: one answer', async () => {
    const { user, secret } = await enrolledUser();
    const bare = await putUser(svc.stack.runtime, { username: `bare_${Date.now()}` });
    const blocked = await enrolledUser({ blocked: true });
    for (const params of [
      { username: user.username!, otp: wrongCode(secret) },
      { username: 'nobody-here', otp: '123456' },
      { username: bare.username!, otp: '123456' },
      { username: blocked.user.username!, otp: totp(blocked.secret, serviceNow()) },
    ]) {
      expect(await token(params)).toMatchObject({ status: 400, body: INVALID });
    }
    // The blocked user's code was not consumed (nor counted against the authenticator).
    expect(await stored(keys.userOtp(blocked.user.id))).toMatchObject({ last_step: -1, failures: 0 });
  });

  it('a code that is not 6 digits is 400 naming body.otp', async () => {
    for (const otp of ['12345', '1234567', 'abcdef', '']) {
      const res = await token({ username: 'someone', otp });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('body.otp') });
    }
  });

  it('wrong codes count toward the user lockout: the 11th attempt is 429 even with the right code', async () => {
    const { user, secret } = await enrolledUser();
    for (let i = 0; i < 10; i++) expect((await token({ username: user.username!, otp: wrongCode(secret) })).status).toBe(400);
    const locked = await token({ username: user.username!, otp: totp(secret, serviceNow()) });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toEqual(expect.stringMatching(/^\d+$/));
    expect((await stored(keys.userOtp(user.id)))?.failures).toBe(10);
  });

  it('100 consecutive failures disable the authenticator until it is enrolled again (NIST SP 800-63B §5.2.2)', async () => {
    const { user, secret } = await enrolledUser();
    for (let i = 0; i < 10; i++) expect((await token({ username: user.username!, otp: wrongCode(secret) })).status).toBe(400);
    // Locked: after each lockout one more attempt is checked (the count is still 10 or more).
    for (let i = 10; i < 100; i++) {
      later(15 * 60);
      expect((await token({ username: user.username!, otp: wrongCode(secret) })).status).toBe(400);
    }
    expect((await stored(keys.userOtp(user.id)))?.failures).toBe(100);
    later(15 * 60);
    // The right code, admitted by the user lockout, is refused: the authenticator is disabled.
    expect((await token({ username: user.username!, otp: totp(secret, serviceNow()) })).body).toEqual(INVALID);
    later(15 * 60);
    const fresh = base32Decode(await otps().enroll(user.id))!;
    expect((await token({ username: user.username!, otp: totp(fresh, serviceNow()) })).status).toBe(200);
    expect(await stored(keys.userOtp(user.id))).toMatchObject({ failures: 0 });
    expect(await stored(keys.user(user.id))).not.toHaveProperty('login_failures');
  });
});
