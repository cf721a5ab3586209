import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Every request line at DEBUG (successful /token lines included), set before any module loads the
// logger: Powertools resets the level to its initial one on every invocation.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { startTestService } = await import('../support/service/local-service.ts');
const { captureLogLines, captureStdout } = await import('../support/service/capture-stdout.ts');
const { loginClient, tokenRequest } = await import('../support/oauth/login-grants.ts');
const { putUser } = await import('../support/store/user-items.ts');
const { hashPassword } = await import('#shared/crypto/password-hash.ts');
const { otpRepository } = await import('#shared/store/users/otp-repository.ts');
const { base32Decode, totp } = await import('#shared/crypto/totp.ts');
type TestService = Awaited<ReturnType<typeof startTestService>>;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

describe('login logs', () => {
  it('no password, hash, OTP secret or code reaches a log line, for successes, failures and lockouts', async () => {
    // The setup's own request lines are not what this test checks: kept off the test output.
    let auth = '';
    await captureStdout(async () => {
      ({ auth } = await loginClient(svc, ['password', 'otp', 'refresh_token']));
    });
    const password = 'Quartz-Lantern-88-Meadow';
    const hash = await hashPassword(password);
    const { runtime } = svc.stack;
    const user = await putUser(runtime, { username: 'logged_user', password_hash: hash });
    const otps = otpRepository(runtime.db, svc.stack.tableName, runtime.now, runtime.secretBox, { maxFailures: 100 });
    const secretText = await otps.enroll(user.id);
    const code = totp(base32Decode(secretText)!, new Date());
    // The password grant takes the current step's code (the user has an authenticator); the otp
    // grant the next step's (one step of drift is allowed, docs/contract.md §7.3).
    const nextCode = totp(base32Decode(secretText)!, new Date(Date.now() + 30_000));
    const wrongPasswords = Array.from({ length: 11 }, (_, i) => `Wrong-Guess-${i}-Xylophone`);

    const token = async (params: Record<string, string>) => {
      const { grant_type, ...rest } = params;
      const res = await tokenRequest(svc, auth, grant_type!, rest);
      return { status: res.status, body: res.body as Record<string, string> };
    };

    let statuses: number[] = [];
    let issued: Record<string, string> = {};
    const { raw, lines } = await captureLogLines(async () => {
      const ok = await token({ grant_type: 'password', username: 'logged_user', password, otp: code, scope: 'openid offline_access' });
      issued = ok.body;
      const otp = await token({ grant_type: 'otp', username: 'logged_user', otp: nextCode });
      const replay = await token({ grant_type: 'otp', username: 'logged_user', otp: nextCode });
      const unknown = await token({ grant_type: 'password', username: 'nobody', password });
      const wrong = [];
      for (const p of wrongPasswords) wrong.push((await token({ grant_type: 'password', username: 'logged_user', password: p })).status);
      statuses = [ok.status, otp.status, replay.status, unknown.status, ...wrong];
    });
    // The replayed code counted as the first failure: 9 more wrong passwords, then the lockout.
    expect(statuses).toEqual([200, 200, 400, 400, ...Array(9).fill(400), 429, 429]);
    const requests = lines.filter((l) => l.message === 'request' && l.route === '/token');
    expect(requests).toHaveLength(15);
    const secrets = [password, hash, hash.split('$').pop()!, secretText, ...wrongPasswords];
    secrets.push(issued.access_token!, issued.refresh_token!, issued.id_token!);
    for (const secret of secrets) expect(raw).not.toContain(secret);
    // Six digits may occur inside ids by chance: the code must not appear as a value of its own.
    for (const c of [code, nextCode]) expect(raw).not.toMatch(new RegExp(`(?<![0-9a-fA-F])${c}(?![0-9a-fA-F])`));
  });
});
