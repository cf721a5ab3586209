import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Every line, DEBUG included (a successful /token is a DEBUG line): set before any module loads
// the logger, because Powertools resets the level to its initial one on every invocation.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { basicAuth, startTestService } = await import('../support/service/local-service.ts');
const { captureLogLines, captureStdout } = await import('../support/service/capture-stdout.ts');
const { managementCaller } = await import('../support/service/management-api.ts');
const { putUser } = await import('../support/store/user-items.ts');
const { oauthDeps } = await import('#shared/wiring/token-path/token-path-records.ts');
const { issueUserTokens } = await import('#shared/oauth/user-tokens/issue-user-tokens.ts');
type TestService = Awaited<ReturnType<typeof startTestService>>;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

/** No refresh token (nor any token) reaches a log line, on success or failure (docs/tokens.md "Logs"). */
describe('logs of the refresh_token grant and /revoke', () => {
  it('carry no refresh, access or ID token, at DEBUG, through rotation, reuse, a refused scope and a revocation', async () => {
    // The setup's own request lines are not what this test checks: kept off the test output.
    let created!: Awaited<ReturnType<ReturnType<typeof managementCaller>>>;
    await captureStdout(async () => {
      const call = managementCaller(svc.url, await svc.managementToken());
      created = await call('POST', '/clients', {
        body: { client_name: 'logs rp', client_metadata: { grant_types: ['refresh_token'] } },
      });
    });
    expect(created.status).toBe(201);
    const auth = basicAuth(created.body.id, created.body.client_secret);
    const deps = oauthDeps(svc.stack.runtime);
    const user = await putUser(svc.stack.runtime);
    const first = await issueUserTokens(
      {
        client: (await deps.findClient(created.body.id))!,
        user,
        request: { scope: 'openid offline_access' },
        authTime: 1,
        authorizedAt: new Date().toISOString(),
      },
      deps,
    );
    const post = async (path: string, params: Record<string, string>) => {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
        body: new URLSearchParams(params),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const seen: string[] = [first.refresh_token!, first.access_token, first.id_token!];
    const { raw, lines } = await captureLogLines(async () => {
      const ok = await post('/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
      expect(ok.status).toBe(200);
      seen.push(ok.body.refresh_token, ok.body.access_token, ok.body.id_token);
      expect(
        (await post('/token', { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token, scope: 'openid profile' })).status,
      ).toBe(400);
      expect((await post('/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token! })).status).toBe(400); // reuse
      expect((await post('/revoke', { token: ok.body.refresh_token })).status).toBe(200);
    });
    const requests = lines.filter((l) => l.message === 'request').map((l) => [l.route, l.status]);
    expect(requests).toEqual([
      ['/token', 200],
      ['/token', 400],
      ['/token', 400],
      ['/revoke', 200],
    ]);
    for (const token of seen) {
      expect(raw).not.toContain(token);
      expect(raw).not.toContain(token.split('.').at(-1)!); // not even a JWT's signature
    }
  });
});
