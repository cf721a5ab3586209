import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The service logs at INFO in this file (the suite runs at WARN), so the request lines are there to check.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { csrfOf, startSignupService } = await import('../support/oauth/signup.ts');
const { captureLogLines, captureStdout } = await import('../support/service/capture-stdout.ts');
const { DEFAULT_TENANT_ID: DEFAULT_TENANT } = await import('#shared/records/tenant-record.ts');

let s: Awaited<ReturnType<typeof startSignupService>>;
beforeAll(async () => {
  // The setup's own request lines are not what this file checks: kept off the test output.
  await captureStdout(async () => {
    s = await startSignupService();
  });
});
afterAll(async () => s?.svc.stop());

const users = () => s.users();
const register = (body: Record<string, unknown>) => s.register(body);
const linkFor = (to: string) => s.linkFor(to);

describe('logs: no secret in logs', () => {
  it('registering and confirming log no password, hash, ticket, CSRF token or mail body', async () => {
    const email = 'logs@example.com';
    let link = '';
    let csrf = '';
    const { raw } = await captureLogLines(async () => {
      await register({ email, password: 'log-canary-password-42' });
      link = await linkFor(email);
      csrf = csrfOf(await (await fetch(link)).text());
      await fetch(link, { method: 'POST', body: new URLSearchParams({ csrf_token: csrf }) });
      await register({ email: 'logs2@example.com', password: 'log-canary-password-42', email_verified: true });
    });
    const stored = await users().get((await users().findIdByLogin(DEFAULT_TENANT, 'email', email))!);
    expect(raw).toContain('/identity/v1/users/register'); // the request lines are there
    for (const secret of [
      'log-canary-password-42',
      stored!.password_hash!,
      link.slice(link.lastIndexOf('/') + 1),
      csrf,
      'Verify your email address',
    ]) {
      expect(raw).not.toContain(secret);
    }
  });
});
