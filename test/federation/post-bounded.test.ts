import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '#shared/federation/federation-errors.ts';
import { boundedFormPoster, TOKEN_RESPONSE_MAX_BYTES } from '#shared/federation/post-bounded.ts';

/**
 * The token request's POST (docs/federation.md "Federated login"), held to the GET adapter's
 * rules: the URL policy and public addresses before any connection, no redirect followed, a size
 * bound, JSON only, a total timeout. A loopback server plays the token endpoint.
 */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler;
let base: string;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => handler(req, body, res));
});
const post = boundedFormPoster({ allowLoopbackHttp: true, connectTimeoutMs: 1000, totalTimeoutMs: 500 });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function reason(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return (error as ProviderError).reason;
}

const json = (res: ServerResponse, status: number, body: string) =>
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);

describe('boundedFormPoster', () => {
  it('posts the form with the given headers and answers status and JSON body, errors included (RFC 6749 §5.2)', async () => {
    let seen: { method?: string; type?: string; auth?: string; body: string } = { body: '' };
    handler = (req, body, res) => {
      seen = { method: req.method, type: req.headers['content-type'], auth: req.headers.authorization, body };
      json(res, body.includes('bad') ? 400 : 200, body.includes('bad') ? '{"error":"invalid_grant"}' : '{"id_token":"x.y.z"}');
    };
    const ok = await post(new URL(`${base}/token`), { grant_type: 'authorization_code', code: 'a b&c' }, { authorization: 'Basic eDp5' });
    expect(ok).toEqual({ status: 200, body: { id_token: 'x.y.z' } });
    expect(seen).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded',
      auth: 'Basic eDp5',
      body: 'grant_type=authorization_code&code=a+b%26c',
    });
    expect(await post(new URL(`${base}/token`), { code: 'bad' })).toEqual({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a redirect, a body over the bound (announced or not), a body that is not JSON', async () => {
    handler = (_req, _body, res) => res.writeHead(302, { location: 'https://elsewhere.example/token' }).end();
    expect(await reason(post(new URL(`${base}/token`), {}))).toBe('redirect');
    handler = (_req, _body, res) => json(res, 200, `{"a":"${'x'.repeat(TOKEN_RESPONSE_MAX_BYTES)}"}`);
    expect(await reason(post(new URL(`${base}/token`), {}))).toBe('too_large');
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"a":"${'x'.repeat(TOKEN_RESPONSE_MAX_BYTES)}"}`);
    };
    expect(await reason(post(new URL(`${base}/token`), {}))).toBe('too_large');
    handler = (_req, _body, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>');
    expect(await reason(post(new URL(`${base}/token`), {}))).toBe('not_json');
  });

  it('a token endpoint that never answers fails at the total timeout', async () => {
    handler = () => {};
    const started = Date.now();
    expect(await reason(post(new URL(`${base}/token`), {}))).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('never connects where the URL policy or the address rule says no', async () => {
    const strict = boundedFormPoster({ allowLoopbackHttp: false, connectTimeoutMs: 1000, totalTimeoutMs: 1000 });
    expect(await reason(strict(new URL(`${base}/token`), {}))).toBe('not_https');
    expect(await reason(strict(new URL('https://10.0.0.1/token'), {}))).toBe('private_address');
    expect(await reason(strict(new URL('https://169.254.169.254/latest'), {}))).toBe('private_address');
    expect(await reason(post(new URL('https://user:pw@example.com/token'), {}))).toBe('bad_url');
  });
});
