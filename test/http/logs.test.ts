import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The service logs at INFO in this file (the suite runs at WARN): set before any module loads the
// logger, because Powertools resets the level to its initial one on every invocation.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

const { basicAuth, startTestService } = await import('../support/service/local-service.ts');
const { captureLogLines } = await import('../support/service/capture-stdout.ts');
type TestService = Awaited<ReturnType<typeof startTestService>>;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

const form = (params: Record<string, string>) => new URLSearchParams(params);
const post = (path: string, body: URLSearchParams, headers: Record<string, string> = {}) =>
  fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });

describe('logs', () => {
  it('carry one structured line per request with a request id, and never a secret or a token', async () => {
    let token = '';
    const { raw: all, lines } = await captureLogLines(async () => {
      token = await svc.managementToken('read:clients');
      await post('/tokeninfo', form({ token }), { authorization: basicAuth(svc.clientId, svc.clientSecret) });
      await post('/token', form({ grant_type: 'client_credentials', audience: svc.managementAudience }), {
        authorization: basicAuth(svc.clientId, 'wrong-secret-value'),
      });
      await fetch(`${svc.url}/identity/v1/clients?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    });
    const requests = lines.filter((l) => l.message === 'request');
    // Successes of the high-volume OAuth endpoints are DEBUG lines (API Gateway's access log has
    // them); failures, and every management request, are INFO.
    expect(requests.map((r) => [r.method, r.route, r.status])).toEqual([
      ['POST', '/token', 401],
      ['GET', '/identity/v1/clients', 200],
    ]);
    expect(requests.every((r) => typeof r.request_id === 'string' && r.level === 'INFO')).toBe(true);
    for (const secret of [svc.clientSecret, 'wrong-secret-value', token, token.split('.')[2]!]) expect(all).not.toContain(secret);
  });
});
