import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// LOG_LEVEL=DEBUG (how an operator sees every request in the function's own log): set before any
// module loads the logger, as in logs.test.ts.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { basicAuth, startTestService } = await import('../support/service/local-service.ts');
const { captureLogLines } = await import('../support/service/capture-stdout.ts');
type TestService = Awaited<ReturnType<typeof startTestService>>;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

describe('logs at DEBUG', () => {
  it('show the successful token and introspection requests too, still without a secret or a token', async () => {
    let token = '';
    const { raw: all, lines } = await captureLogLines(async () => {
      token = await svc.managementToken('read:clients');
      await fetch(`${svc.url}/tokeninfo`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(svc.clientId, svc.clientSecret) },
        body: new URLSearchParams({ token }),
      });
    });
    const requests = lines.filter((l) => l.message === 'request');
    expect(requests.map((r) => [r.level, r.route, r.status])).toEqual([
      ['DEBUG', '/token', 200],
      ['DEBUG', '/tokeninfo', 200],
    ]);
    for (const secret of [svc.clientSecret, token, token.split('.')[2]!]) expect(all).not.toContain(secret);
  });
});
