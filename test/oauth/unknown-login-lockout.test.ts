import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '#shared/crypto/password-hash.ts';
import { base32Decode, hotp, totp, totpStep } from '#shared/crypto/totp.ts';
import type { UserRecord } from '#shared/records/user-record.ts';
import { otpRepository } from '#shared/store/users/otp-repository.ts';
import { INVALID_CREDENTIALS, loginClient, tokenRequest } from '../support/oauth/login-grants.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { putUser } from '../support/store/user-items.ts';

/**
 * The lockout of docs/contract.md §7.3 for a login that names no user (docs/users.md "Brute force"): over
 * HTTP, an unknown login answers exactly as an existing user's does, attempt after attempt: 400
 * `invalid_grant` ten times, then 429 with `Retry-After`, and once the lockout ends one more
 * attempt, then 429 again. The count follows the lookup's spelling rules, never reaches a user
 * under another spelling, and a user created later under the name starts with its own count.
 */
let svc: TestService;
let auth: string;
let offsetMs = 0;
const serviceNow = () => new Date(Date.now() + offsetMs);
const later = (seconds: number) => {
  offsetMs += seconds * 1000;
};
const PASSWORD = 'unknown-Lockout-Harbour-42';
/** The grant checks a hash with the parameters stored in it: a cheap one keeps this file fast. */
let passwordHash: string;

beforeAll(async () => {
  svc = await startTestService({ now: serviceNow });
  ({ auth } = await loginClient(svc, ['password', 'otp']));
  passwordHash = await hashPassword(PASSWORD, { memoryKiB: 64, passes: 1, parallelism: 1 });
});
afterAll(async () => svc?.stop());

const fresh = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const newUser = (fields: Partial<UserRecord> = {}) =>
  putUser(svc.stack.runtime, { username: `known_${fresh()}`, password_hash: passwordHash, ...fields });

/** An answer with what may tell two logins apart: status, body and every header but the date. */
async function answer(grant: 'password' | 'otp', params: Record<string, string>) {
  const res = await tokenRequest(svc, auth, grant, params);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, body: res.body, headers };
}

/** `n` answers in a row; the same shape for both logins compared. */
async function answers(grant: 'password' | 'otp', n: number, params: () => Record<string, string>) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await answer(grant, params()));
  return out;
}

/** Retry-After is seconds left, which may differ by one between two runs a second apart. */
const withoutRetryAfter = (a: Awaited<ReturnType<typeof answer>>) => {
  const { 'retry-after': retryAfter, ...headers } = a.headers;
  return { ...a, headers, retryAfter: Number(retryAfter ?? Number.NaN) };
};

function expectSameAnswers(known: Awaited<ReturnType<typeof answer>>[], unknown: Awaited<ReturnType<typeof answer>>[]) {
  const k = known.map(withoutRetryAfter);
  const u = unknown.map(withoutRetryAfter);
  expect(u.map(({ retryAfter: _, ...rest }) => rest)).toEqual(k.map(({ retryAfter: _, ...rest }) => rest));
  for (const [i, a] of k.entries()) {
    if (a.status !== 429) continue;
    expect(Math.abs(a.retryAfter - u[i]!.retryAfter), `attempt ${i + 1}`).toBeLessThanOrEqual(1);
  }
}

describe('an unknown login is locked out like an existing one (docs/contract.md §7.3)', () => {
  it('password grant: 10 × 400 invalid_grant, then 429 with the same body and headers; after the lockout one more 400, then 429 again', async () => {
    const user = await newUser();
    const ghost = `ghost_${fresh()}`;
    const run = async (username: string, right: string) => {
      const first = await answers('password', 10, () => ({ username, password: 'wrong-password-123' }));
      const locked = await answer('password', { username, password: right });
      later(901);
      const afterLockout = await answers('password', 2, () => ({ username, password: 'wrong-password-123' }));
      return [...first, locked, ...afterLockout];
    };
    const known = await run(user.username!, PASSWORD);
    const unknown = await run(ghost, PASSWORD);
    expect(known.map((a) => a.status)).toEqual([...Array(10).fill(400), 429, 400, 429]);
    expect(known[0]!.body).toEqual(INVALID_CREDENTIALS);
    expect(known[10]!.body).toMatchObject({ error: 'too_many_requests' });
    expect(Number(known[10]!.headers['retry-after'])).toBeGreaterThan(890);
    expectSameAnswers(known, unknown);
  });

  it('otp grant: the same answers for an enrolled user and an unknown login', async () => {
    const user = await newUser();
    const { db, secretBox } = svc.stack.runtime;
    const otps = otpRepository(db, svc.stack.tableName, serviceNow, secretBox, { maxFailures: 100 });
    const secret = base32Decode(await otps.enroll(user.id))!;
    const wrongCode = () => {
      const step = totpStep(serviceNow());
      const valid = new Set([-1, 0, 1].map((d) => hotp(secret, step + d)));
      for (let i = 0; ; i++) if (!valid.has(String(i).padStart(6, '0'))) return String(i).padStart(6, '0');
    };
    const run = async (username: string) => {
      const first = await answers('otp', 10, () => ({ username, otp: wrongCode() }));
      return [...first, await answer('otp', { username, otp: totp(secret, serviceNow()) })];
    };
    const known = await run(user.username!);
    const unknown = await run(`ghost_${fresh()}`);
    expect(known.map((a) => a.status)).toEqual([...Array(10).fill(400), 429]);
    expectSameAnswers(known, unknown);
  });

  it('the count follows the lookup: an email in any case is one login, and the count is shared by both grants', async () => {
    const ghost = `Ghost.${fresh()}@Example.com`;
    for (let i = 0; i < 5; i++) expect((await answer('password', { username: ghost, password: 'wrong-password-123' })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await answer('otp', { username: ghost.toLowerCase(), otp: '000000' })).status).toBe(400);
    const locked = await answer('password', { username: ghost.toUpperCase(), password: 'wrong-password-123' });
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: 'too_many_requests' });
  });

  it('another spelling that names no user never locks the user out; a user created later under a locked name starts with its own count', async () => {
    const user = await newUser();
    // A username with a trailing space is not the user's (the grant takes the login as sent).
    for (let i = 0; i < 11; i++) await answer('password', { username: `${user.username} `, password: 'wrong-password-123' });
    expect((await answer('password', { username: `${user.username} `, password: PASSWORD })).status).toBe(429);
    expect((await answer('password', { username: user.username!, password: PASSWORD })).status).toBe(200);

    const name = `later_${fresh()}`;
    for (let i = 0; i < 10; i++) expect((await answer('password', { username: name, password: 'wrong-password-123' })).status).toBe(400);
    expect((await answer('password', { username: name, password: PASSWORD })).status).toBe(429);
    await newUser({ username: name });
    expect((await answer('password', { username: name, password: PASSWORD })).status).toBe(200);
  });
});
