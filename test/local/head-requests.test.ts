import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * `curl -I`: HEAD is GET without the content (RFC 9110 §9.3.2). The deployed API serves it on every
 * GET row (a HEAD method to the same function) and so does the local server (docs/deploy.md
 * "Unknown paths and methods").
 */
let svc: TestService;
let token: string;
beforeAll(async () => {
  svc = await startTestService({ contract: true });
  token = await svc.managementToken('read:clients');
});
afterAll(async () => svc?.stop());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(method: string, path: string, headers: Record<string, string>): Promise<Raw> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The bytes on the wire: an HTTP client library would drop a HEAD answer's body itself. */
function wire(request: string): Promise<string> {
  const { port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('HEAD on a GET route answers as GET, without the body', () => {
  const cases: [string, string, () => Record<string, string>][] = [
    ['a public route', '/.well-known/openid-configuration', () => ({})],
    ['the docs page', '/docs', () => ({})],
    ['a bearer route', '/identity/v1/clients', () => ({ authorization: `Bearer ${token}` })],
  ];
  it.each(cases)('%s: the status and headers of GET, Content-Length included', async (_what, path, headersOf) => {
    const get = await send('GET', path, headersOf());
    expect(get.status).toBe(200);
    const head = await send('HEAD', path, headersOf());
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
    const { date: _gd, ...getHeaders } = get.headers;
    const { date: _hd, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it.each(cases)('%s: no body on the wire', async (_what, path, headersOf) => {
    const extra = Object.entries(headersOf()).map(([k, v]) => `${k}: ${v}\r\n`);
    const answer = await wire(`HEAD ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extra.join('')}\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('');
  });

  it('a path without GET still answers HEAD with 405 and its Allow', async () => {
    const r = await send('HEAD', '/token', {});
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('POST');
  });
});
