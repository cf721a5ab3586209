import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { startTestService, type TestService } from '../support/service/local-service.ts';

let svc: TestService;
let token: string;

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.managementToken();
});
afterAll(async () => svc?.stop());

/** Three of the API's security headers with their values (shared/http/security-headers.ts). */
const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

describe('local server: health (spec 4.4)', () => {
  for (const path of ['/company/v1/health', '/api/company/v1/health']) {
    it(`GET ${path} with a token answers the four health strings`, async () => {
      const res = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      for (const [h, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(h), h).toBe(value);
      expect((await res.json()) as any).toEqual({
        server_name: 'identity-service',
        server_version: pkg.version,
        server_status: 'ok',
        server_description: expect.any(String),
      });
    });
  }

  it('answers 401 unauthorized with a Bearer challenge without a token, with the security headers', async () => {
    const res = await fetch(`${svc.url}/company/v1/health`);
    expect(res.status).toBe(401);
    for (const [h, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(h), h).toBe(value);
    // RFC 6750 §3.1: no credential, so the challenge names no error.
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="identity"');
    expect((await res.json()) as any).toEqual({ code: 'unauthorized', message: expect.any(String) });
  });

  it('answers 401 for a token that is not ours', async () => {
    const res = await fetch(`${svc.url}/company/v1/health`, { headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).code).toBe('unauthorized');
  });
});

describe('local server: spec-shaped errors (docs/contract.md §2)', () => {
  it('an unknown path is 404 not_found', async () => {
    const res = await fetch(`${svc.url}/no/such/path`);
    expect(res.status).toBe(404);
    expect((await res.json()) as any).toEqual({ code: 'not_found', message: 'Not found.' });
  });

  it('a known path with another method is 405 with Allow', async () => {
    const res = await fetch(`${svc.url}/company/v1/health`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await res.json()) as any).toEqual({ code: 'method_not_allowed', message: expect.any(String) });
  });

  it('a malformed JSON body is 400 naming the body, with the security headers', async () => {
    const res = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":',
    });
    expect(res.status).toBe(400);
    for (const [h, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(h), h).toBe(value);
    expect((await res.json()) as any).toMatchObject({ code: 'invalid_request', message: 'body: malformed JSON.' });
  });

  it('a missing field is 400 naming the field', async () => {
    const res = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'scope=x',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).message).toMatch(/^body\.grant_type: /);
  });

  it('an oversized body is 413 in the error shape', async () => {
    const res = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&pad=${'a'.repeat(70 * 1024)}`,
    });
    expect(res.status).toBe(413);
    expect((await res.json()) as any).toEqual({
      code: 'payload_too_large',
      message: expect.any(String),
      error: 'payload_too_large',
      error_description: expect.any(String),
    });
  });

  it('a port already in use fails with a clear message', async () => {
    const { startLocalServer } = await import('../../infra/local/server.ts');
    const port = Number(new URL(svc.url).port);
    await expect(startLocalServer({ port, stageThrottle: { rateLimit: 1, burstLimit: 1 }, runtime: svc.stack.runtime })).rejects.toThrow(
      /Port \d+ is already in use/,
    );
  });
});

describe('local server: throttles (429 like API Gateway)', () => {
  it('refuses requests beyond the burst with 429 and Retry-After', async () => {
    const small = await startTestService({ throttle: { rateLimit: 1, burstLimit: 3 } });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 5; i++) {
        last = await fetch(`${small.url}/.well-known/jwks.json`);
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(last!.headers.get('retry-after')).toBe('1');
      expect((await last!.json()) as any).toEqual({ code: 'too_many_requests', message: expect.any(String) });
    } finally {
      await small.stop();
    }
  });
});
