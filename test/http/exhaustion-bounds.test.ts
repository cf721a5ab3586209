import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * The exhaustion bounds (docs/security.md "Exhaustion bounds") over HTTP against the local service:
 * each refusal is a 400 naming `body` (431 for headers), fast, before authentication, and the
 * service keeps serving.
 */
let svc: TestService;
let admin: string;

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
  // Each route's module loads on its first request: the timings below are of the request alone.
  for (const path of ['/identity/v1/users', '/token', '/revoke']) await post(path, '{}');
});
afterAll(async () => svc?.stop());

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  ms: number;
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: res.status, body: json, text, ms: performance.now() - started };
}

const deepArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const elements = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;

function expectBodyRefused(r: Answer, why: RegExp): void {
  expect(r.status, r.text).toBe(400);
  expect(r.body.code).toBe('invalid_request');
  expect(r.body.message).toMatch(/^body: /);
  expect(r.body.message).toMatch(why);
}

const stillServing = async () => {
  const res = await fetch(`${svc.url}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
};

describe('30,000 levels of `[`, unauthenticated: a 400 at once, not the heap', () => {
  const attack = deepArrays(30_000);

  it('POST /identity/v1/users without a token', async () => {
    const r = await post('/identity/v1/users', attack);
    expectBodyRefused(r, /at most 64 levels/);
    expect(r.ms).toBeLessThan(2000);
    await stillServing();
  });

  it.each(['/token', '/revoke'])('POST %s, with the OAuth error members', async (path) => {
    const r = await post(path, attack);
    expectBodyRefused(r, /at most 64 levels/);
    expect(r.body.error).toBe('invalid_request');
    expect(r.ms).toBeLessThan(2000);
    await stillServing();
  });
});

describe('the bounds themselves, before authentication', () => {
  it('64 levels reach authentication (401), 65 are a 400, with a token too', async () => {
    expect((await post('/identity/v1/users', deepArrays(64))).status).toBe(401);
    expectBodyRefused(await post('/identity/v1/users', deepArrays(65)), /at most 64 levels/);
    expectBodyRefused(await post('/identity/v1/clients', deepArrays(65), { authorization: `Bearer ${admin}` }), /at most 64 levels/);
  });

  it('10,000 members and elements reach authentication, 10,001 are a 400', async () => {
    expect((await post('/identity/v1/users', elements(10_000))).status).toBe(401);
    expectBodyRefused(await post('/identity/v1/users', elements(10_001)), /at most 10000 members/);
  });

  it('a duplicate member deep in a body still names its path', async () => {
    const body = `{"client_name":"x","client_metadata":{"urls":{"a":1,"a":2}}}`;
    const r = await post('/identity/v1/clients', body, { authorization: `Bearer ${admin}` });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^body\.client_metadata\.urls\.a: a member name appears twice in one object/);
  });

  it('a form of 1,001 parameters is a 400 on every route (the parser would drop the rest unseen); 1,000 are read', async () => {
    const form = (n: number) => ['token=x', ...Array.from({ length: n - 1 }, (_, i) => `p${i}=1`)].join('&');
    const auth = { authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' };
    const refused = await post('/revoke', form(1001), auth);
    expectBodyRefused(refused, /at most 1000 parameters/);
    expect(refused.body.error).toBe('invalid_request');
    expect((await post('/revoke', form(1000), auth)).body.message ?? '').not.toMatch(/parameters/);
    const page = await post('/login', form(1001), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/^<!DOCTYPE html>/i);
  });
});

describe('headers: the local server keeps API Gateway’s 10,240 bytes of request line and headers', () => {
  it('a 9 KB Cookie header is read, an 11 KB one is a 431 in the error shape', async () => {
    const discovery = (cookie: string) => fetch(`${svc.url}/.well-known/openid-configuration`, { headers: { cookie } });
    expect((await discovery(`c=${'a'.repeat(9 * 1024)}`)).status).toBe(200);
    const big = await discovery(`c=${'a'.repeat(11 * 1024)}`);
    expect(big.status).toBe(431);
    expect(await big.json()).toEqual({ code: 'headers_too_large', message: expect.any(String) });
    await stillServing();
  });
});
