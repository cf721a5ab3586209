import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_ERROR_PATHS } from '#shared/routes/oauth-routes.ts';
import { ROUTES } from '#shared/routes/route-table.ts';
import { loadRouteSpecs } from '../../infra/openapi/route-specs.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * What the local server answers itself, before any handler runs (404, 405, 429,
 * 431, malformed HTTP), carries the pipeline's security headers and the `{code, message}` body,
 * never echoes the request (docs/contract.md §8 "Errors"), and a request target starting with `//` is not
 * read as a host.
 */
let svc: TestService;
let token: string;

beforeAll(async () => {
  svc = await startTestService({ throttle: { rateLimit: 1, burstLimit: 2 } });
  token = await svc.managementToken('read:clients');
});
afterAll(async () => svc?.stop());

/** Headers of any answer that say nothing about security: everything else must match the pipeline's. */
const NOT_SECURITY = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'www-authenticate',
  'allow',
  'retry-after',
  'transfer-encoding',
]);

/** The security headers a pipeline error carries (a 401 from a handler), the reference for the server's own. */
let security: Record<string, string>;
beforeAll(async () => {
  const r = await raw('GET', '/company/v1/health');
  expect(r.status).toBe(401);
  security = Object.fromEntries(
    Object.entries(r.headers)
      .filter(([k]) => !NOT_SECURITY.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
  expect(security).toMatchObject({
    'x-content-type-options': 'nosniff',
    'content-security-policy': expect.stringContaining("default-src 'none'"),
    'strict-transport-security': expect.any(String),
  });
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with the request target exactly as given (fetch would normalise it). */
function raw(method: string, target: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bytes on a socket, for what an HTTP client library would refuse to send. */
function socketExchange(bytes: string): Promise<string> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(bytes));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

function parseRaw(response: string): Raw {
  const [head, body] = [response.slice(0, response.indexOf('\r\n\r\n')), response.slice(response.indexOf('\r\n\r\n') + 4)];
  const [status, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(status!.split(' ')[1]), headers, text: body };
}

const expectErrorShape = (r: Raw, status: number, code: string) => {
  expect(r.status).toBe(status);
  expect(r.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', ...security });
  expect(JSON.parse(r.text)).toEqual({ code, message: expect.any(String) });
};

describe("the local server's own answers: security headers, error body, nothing echoed", () => {
  it('404 does not echo the path (nor a value in it)', async () => {
    const r = await raw('GET', '/no/such/%3Cscript%3Ealert(1)%3C%2Fscript%3E?x=<b>');
    expectErrorShape(r, 404, 'not_found');
    expect(JSON.parse(r.text).message).toBe('Not found.');
    expect(r.text).not.toMatch(/no\/such|script|alert/);
  });

  it('405 carries Allow, the headers and the body', async () => {
    const r = await raw('DELETE', '/identity/v1/clients');
    expectErrorShape(r, 405, 'method_not_allowed');
    expect(r.headers.allow).toBe('GET, HEAD, POST');
  });

  it('405 on an OAuth endpoint also carries error and error_description, as the fallback function answers there', async () => {
    const r = await raw('DELETE', '/token');
    expect(r.status).toBe(405);
    expect(r.headers).toMatchObject({ ...security, allow: 'POST' });
    expect(JSON.parse(r.text)).toEqual({
      code: 'method_not_allowed',
      message: expect.any(String),
      error: 'method_not_allowed',
      error_description: JSON.parse(r.text).message,
    });
  });

  it("413 beyond API Gateway's 10 MB reaches the client, in the error shape (on an OAuth endpoint with its members)", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    const oauth = await fetch(`${svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: big,
    });
    expect(oauth.status).toBe(413);
    expect(await oauth.json()).toMatchObject({ code: 'payload_too_large', error: 'payload_too_large' });
    const mgmt = await fetch(`${svc.url}/identity/v1/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: big,
    });
    expect(mgmt.status).toBe(413);
    expect(await mgmt.json()).toEqual({ code: 'payload_too_large', message: expect.any(String) });
  });

  it('429 carries Retry-After, the headers and the body', async () => {
    let r: Raw | undefined;
    for (let i = 0; i < 4; i++) r = await raw('GET', '/.well-known/openid-configuration');
    expectErrorShape(r!, 429, 'too_many_requests');
    expect(r!.headers['retry-after']).toBe('1');
  });

  it('429 on an OAuth endpoint also carries error and error_description (docs/contract.md §2), as API Gateway answers there', async () => {
    let r: Raw | undefined;
    for (let i = 0; i < 4; i++) r = await raw('POST', '/revoke', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r!.status).toBe(429);
    expect(r!.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', ...security, 'retry-after': '1' });
    expect(JSON.parse(r!.text)).toEqual({
      code: 'too_many_requests',
      message: expect.any(String),
      error: 'too_many_requests',
      error_description: JSON.parse(r!.text).message,
    });
  });

  it('knows the OAuth endpoints as their handlers do: OAUTH_ERROR_PATHS are the routes whose handlers answer OAuth errors', async () => {
    const specOf = await loadRouteSpecs();
    const oauthPaths = new Set(ROUTES.filter((route) => specOf(route)?.oauth).map((route) => route.path));
    expect([...oauthPaths].sort()).toEqual([...OAUTH_ERROR_PATHS].sort());
  }, 60_000);

  it("431 (headers beyond the parser's limit) has the JSON body and the headers, not a bare status line", async () => {
    const r = parseRaw(
      await socketExchange(`GET /.well-known/jwks.json HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expectErrorShape(r, 431, 'headers_too_large');
    expect(r.headers.connection).toBe('close');
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.text));
  });

  it('a request that is not HTTP is 400 in the error shape', async () => {
    const r = parseRaw(await socketExchange('NOT HTTP AT ALL\r\n\r\n'));
    expectErrorShape(r, 400, 'invalid_request');
  });
});

describe('request targets starting with // are paths, never a host (RFC 9112 §3.2.1)', () => {
  it('//host/identity/v1/clients does not reach /identity/v1/clients: 404', async () => {
    const served = await raw('GET', '/identity/v1/clients?limit=1', { authorization: `Bearer ${token}` });
    expect(served.status).toBe(200); // the route itself works with this token
    for (const target of [
      '//evil.example/identity/v1/clients?limit=1',
      '//identity/v1/clients',
      `//localhost:${new URL(svc.url).port}/identity/v1/clients`,
    ]) {
      const r = await raw('GET', target, { authorization: `Bearer ${token}` });
      expectErrorShape(r, 404, 'not_found');
      expect(r.text).not.toContain('v1');
    }
  });
});
