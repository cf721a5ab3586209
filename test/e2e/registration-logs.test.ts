import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The service logs at INFO in this file (the suite runs at WARN), so the request lines are there to check.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { startTestService } = await import('../support/local-service.ts');
const { captureLogLines } = await import('../support/capture-stdout.ts');
const { managementCaller } = await import('../support/management-api.ts');
const { readOutbox } = await import('../support/outbox.ts');
const { usersRepository } = await import('../../shared/store/users-repository.ts');
const { DEFAULT_TENANT_ID: DEFAULT_TENANT } = await import('../../shared/records/tenant-record.ts');
type TestService = Awaited<ReturnType<typeof startTestService>>;

let svc: TestService;
let outbox: string;
let publicClientId: string;

beforeAll(async () => {
  svc = await startTestService();
  const call = managementCaller(svc.url, await svc.managementToken());
  const email = svc.stack.runtime.config.email;
  outbox = email?.transport === 'outbox' ? email.dir : '';
  publicClientId = (await call('POST', '/clients', { body: { client_name: 'logs spa', is_public: true } })).body.id;
});
afterAll(async () => svc?.stop());

const users = () => usersRepository(svc.stack.runtime.db, svc.stack.runtime.config.tableName, svc.stack.runtime.now);
const register = (body: Record<string, unknown>) =>
  fetch(`${svc.url}/identity/v1/users/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: publicClientId, ...body }),
  });
const linkFor = async (to: string) =>
  /(http:\/\/\S+\/tickets\/[A-Za-z0-9_-]{43})/.exec((await readOutbox(outbox)).find((m) => m.to === to)!.text)![1]!;
const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;

describe('logs (decision 11: no secret in logs)', () => {
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
