import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fallback } from '../../functions/http/fallback.ts';

const event = (httpMethod: string, path: string) => ({ httpMethod, path });
const body = (r: { body: string }) => JSON.parse(r.body) as Record<string, string>;

describe('functions/http/fallback.ts: what API Gateway routes to no endpoint (docs/contract.md §2)', () => {
  it('unknown path → 404 not_found in the error shape', () => {
    const r = fallback(event('GET', '/nope/nothing'), undefined);
    expect(r.statusCode).toBe(404);
    expect(body(r)).toEqual({ code: 'not_found', message: 'Not found.' });
    expect(r.headers['Content-Type']).toMatch(/^application\/json/);
    expect(r.headers.Allow).toBeUndefined();
  });

  it('GET on a POST-only path → 405 method_not_allowed with Allow: POST; on an OAuth endpoint with RFC 6749 members (docs/contract.md §2)', () => {
    const r = fallback(event('GET', '/token'), undefined);
    expect(r.statusCode).toBe(405);
    expect(body(r)).toEqual({
      code: 'method_not_allowed',
      message: expect.any(String),
      error: 'method_not_allowed',
      error_description: body(r).message,
    });
    expect(r.headers.Allow).toBe('POST');
    // Not on the other routes: discovery is no OAuth endpoint of docs/contract.md §2.
    expect(Object.keys(body(fallback(event('POST', '/.well-known/jwks.json'), undefined)))).toEqual(['code', 'message']);
  });

  it('405 on a parameterised path lists every method of that path', () => {
    const r = fallback(event('POST', '/identity/v1/clients/0191f2a0-7c1e-7000-8000-000000000000'), undefined);
    expect(r.statusCode).toBe(405);
    expect(r.headers.Allow!.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']);
  });

  it('/docs/ is a permanent redirect to the reference page, with the security headers and no body', () => {
    const r = fallback(event('GET', '/docs/'), undefined);
    expect(r.statusCode).toBe(308);
    expect(r.headers.Location).toBe('../docs');
    expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(r.body).toBe('');
  });

  it('a path one segment past a route is not found, not 405', () => {
    expect(fallback(event('GET', '/token/extra'), undefined).statusCode).toBe(404);
  });

  it('the message points at the docs when a docs URL is configured', () => {
    const r = fallback(event('DELETE', '/nope'), 'https://docs.example.com');
    expect(body(r).message).toBe('Not found. See https://docs.example.com/errors#not_found');
  });

  it('carries nosniff and a deny-all CSP like every pipeline response', () => {
    const r = fallback(event('GET', '/nope'), undefined);
    expect(r.headers['X-Content-Type-Options']).toBe('nosniff');
    expect(r.headers['Content-Security-Policy']).toContain("default-src 'none'");
  });
});

describe('the Lambda handler', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('reads DOCS_URL from the stage configuration, needing no table or KMS call', async () => {
    vi.stubEnv('TABLE_NAME', 'unused');
    vi.stubEnv('ISSUER', 'https://id.example.com');
    vi.stubEnv('KMS_KEY_ID', 'arn:aws:kms:eu-west-1:123456789012:key/unused');
    vi.stubEnv('DOCS_URL', 'https://docs.example.com');
    const { handler } = await import('../../functions/http/fallback.ts');
    const r = await handler({ httpMethod: 'PUT', path: '/.well-known/jwks.json' } as APIGatewayProxyEvent);
    expect(r.statusCode).toBe(405);
    expect(r.headers.Allow).toBe('GET, HEAD');
    expect(body(r).message).toBe('Method not allowed. Allowed: GET, HEAD. See https://docs.example.com/errors#method_not_allowed');
  });
});
