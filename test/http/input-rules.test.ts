import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestService, type TestService } from '../support/service/local-service.ts';

/**
 * docs/contract.md §8 "Strings" and "Bodies and headers", over HTTP against the whole
 * local service. Every refusal is a 400 naming the field, and nothing is stored.
 */
let svc: TestService;
let admin: string;

type Answer = { status: number; body: any };

async function send(
  method: string,
  path: string,
  body: string | Buffer | undefined,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const manage = (method: string, path: string, body?: unknown) =>
  send(method, `/identity/v1${path}`, body === undefined ? undefined : JSON.stringify(body));

const countClients = async () => (await manage('GET', '/clients?total_count=true&limit=1')).body.total_count as number;
const countResources = async () => (await manage('GET', '/resources?total_count=true&limit=1')).body.total_count as number;

function expectRefused(r: Answer, field: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.code).toBe('invalid_request');
  expect(r.body.message.startsWith(`${field}: `), r.body.message).toBe(true);
}

const resourceBody = (identifier_url: string, extra: Record<string, unknown> = {}) => ({
  resource_type: 'api',
  resource_name: 'orders',
  resource_metadata: { identifier_url },
  ...extra,
});

beforeAll(async () => {
  svc = await startTestService();
  admin = await svc.managementToken();
});
afterAll(async () => svc?.stop());

describe('docs/contract.md §8 strings: names, descriptions and URLs', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['another C0 control', 'a\u001Bb'],
    ['a line break', 'a\nb'],
    ['a C1 control', 'a\u0085b'],
    ['U+202E right-to-left override', 'evil\u202Egpj.exe'],
    ['U+2066 isolate', 'a\u2066b'],
    ['a lone surrogate', 'a\ud800b'],
    ['only zero-width characters', '\u200B\u200C\u2060'],
    ['only white space and zero-width characters', ' \u200B\u00A0\uFEFF '],
  ])('client_name with %s: 400 naming body.client_name, nothing stored', async (_, name) => {
    const before = await countClients();
    expectRefused(await manage('POST', '/clients', { client_name: name }), 'body.client_name');
    expect(await countClients()).toBe(before);
  });

  it('resource_name, descriptions and redirect URIs follow the same rules; line breaks stay allowed in descriptions', async () => {
    const before = await countResources();
    expectRefused(
      await manage('POST', '/resources', { ...resourceBody('https://names.example/'), resource_name: 'x\u202Ey' }),
      'body.resource_name',
    );
    expectRefused(
      await manage('POST', '/resources', { ...resourceBody('https://names.example/'), resource_description: 'a\u0000b' }),
      'body.resource_description',
    );
    expect(await countResources()).toBe(before);
    const made = await manage('POST', '/clients', { client_name: 'fine', client_description: 'line one\nline two\ttabbed' });
    expect(made.status).toBe(201);
    expect(made.body.client_description).toBe('line one\nline two\ttabbed');
    const patched = await manage('PATCH', `/clients/${made.body.id}`, { client_description: 'x\u202Ey' });
    expectRefused(patched, 'body.client_description');
    const redirect = await manage('PATCH', `/clients/${made.body.id}`, {
      client_metadata: { urls: { redirect_uris: ['https://app.example/\tcb'] } },
    });
    expectRefused(redirect, 'body.client_metadata.urls.redirect_uris.0');
    const after = await manage('GET', `/clients/${made.body.id}`);
    expect(after.body.client_description).toBe('line one\nline two\ttabbed');
  });
});

describe('docs/contract.md §8 identifier_url: unique after RFC 3986 §6.2.2 normalisation', () => {
  it.each([
    ['NUL', 'https://nul.example/a\u0000b'],
    ['U+202E', 'https://bidi.example/\u202Eipa'],
    ['empty path segments', 'https://empty.example/a//b'],
    ['user information', 'https://good.example@evil.example/'],
  ])('%s: 400 naming the field, nothing stored', async (_, url) => {
    const before = await countResources();
    expectRefused(await manage('POST', '/resources', resourceBody(url)), 'body.resource_metadata.identifier_url');
    expect(await countResources()).toBe(before);
  });

  it('is stored in normal form, and look-alikes of it are 409 (case, default port, dot segments, percent-encoding)', async () => {
    const made = await manage('POST', '/resources', resourceBody('HTTPS://Orders.EXAMPLE:443/v1/./x/../%7Eapi?Q=%4a%2f'));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.resource_metadata.identifier_url).toBe('https://orders.example/v1/~api?Q=J%2F');
    for (const lookalike of [
      'https://orders.example/v1/~api?Q=J%2F',
      'https://ORDERS.example/v1/~api?Q=J%2f',
      'https://orders.example:443/v1/%7eapi?Q=%4A%2F',
      'https://orders.example/v1/a/../~api?Q=J%2F',
      'https://orders.example/v1/%2E/~api?Q=J%2F',
    ]) {
      const dup = await manage('POST', '/resources', resourceBody(lookalike));
      expect(dup.status, lookalike).toBe(409);
    }
    const other = await manage('POST', '/resources', resourceBody('https://other-orders.example/'));
    expect(
      (
        await manage('PATCH', `/resources/${other.body.id}`, {
          resource_metadata: { identifier_url: 'HTTPS://orders.example/v1/%7eapi?Q=J%2F' },
        })
      ).status,
    ).toBe(409);
    expect((await manage('GET', `/resources/${other.body.id}`)).body.resource_metadata.identifier_url).toBe(
      'https://other-orders.example/',
    );
  });

  it('a look-alike of the management API identifier is reserved too: 403', async () => {
    const upper = svc.managementAudience.replace('http://localhost', 'HTTP://LOCALHOST').replace('/identity/v1/', '/identity/x/../v1/');
    const made = await manage('POST', '/resources', resourceBody(upper));
    expect(made.status).toBe(403);
    expect(made.body.message).toMatch(/^body\.resource_metadata\.identifier_url: /);
  });

  it("/token finds a resource by a non-normalised audience, and the token's aud is the stored identifier", async () => {
    const made = await manage('POST', '/resources', resourceBody('https://billing.example/api'));
    const client = await manage('POST', '/clients', {
      client_name: 'billing app',
      client_metadata: { grant_types: ['client_credentials'] },
    });
    expect((await manage('POST', `/clients/${client.body.id}/resources`, { resources: [made.body.id] })).status).toBe(204);
    for (const audience of ['https://billing.example/api', 'HTTPS://BILLING.example:443/./api', 'https://billing.example/%61pi']) {
      const res = await fetch(`${svc.url}/token`, {
        method: 'POST',
        headers: {
          authorization: basicAuth(client.body.id, client.body.client_secret),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', audience }),
      });
      expect(res.status, audience).toBe(200);
      const { access_token } = (await res.json()) as { access_token: string };
      expect(JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()).aud).toBe('https://billing.example/api');
    }
  });
});

describe('docs/contract.md §8 bodies and headers', () => {
  it('invalid UTF-8 in a JSON body is a 400, not a name full of U+FFFD', async () => {
    const before = await countClients();
    for (const bad of [[0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80]]) {
      const body = Buffer.concat([Buffer.from('{"client_name":"a'), Buffer.from(bad), Buffer.from('b"}')]);
      expectRefused(await send('POST', '/identity/v1/clients', body), 'body');
    }
    expect(await countClients()).toBe(before);
  });

  it('invalid UTF-8 in a form body (a percent-encoded bad byte) is a 400 too; a stray % is still just a %', async () => {
    const token = (body: string) =>
      fetch(`${svc.url}/token`, {
        method: 'POST',
        headers: { authorization: basicAuth(svc.clientId, svc.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    // %FF: never UTF-8; %c3%28: a lead byte (lower-case hex) without its continuation byte.
    for (const badBytes of ['%FF', '%c3%28']) {
      const bad = await token(
        `grant_type=client_credentials&audience=${encodeURIComponent(svc.managementAudience)}&scope=read%3Aclients${badBytes}`,
      );
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).message).toMatch(/^body: is not valid UTF-8/);
    }
    const stray = await token(`grant_type=client_credentials&audience=${encodeURIComponent(svc.managementAudience)}&scope=100%`);
    expect(stray.status).toBe(400);
    expect(((await stray.json()) as any).error).toBe('invalid_scope');
  });

  it.each([
    ['top level', '{"client_name":"a","client_name":"b"}', 'body.client_name'],
    ['escaped spelling', '{"client_name":"a","client\\u005fname":"b"}', 'body.client_name'],
    [
      'nested',
      '{"client_name":"a","client_metadata":{"grant_types":[],"grant_types":["client_credentials"]}}',
      'body.client_metadata.grant_types',
    ],
    [
      'in an array',
      '{"client_name":"a","app_metadata":[{"key":"k","value":"1"},{"key":"k","key":"j","value":"2"}]}',
      'body.app_metadata.1.key',
    ],
  ])('duplicate member names (%s) are a 400, nothing stored', async (_, body, field) => {
    const before = await countClients();
    expectRefused(await send('POST', '/identity/v1/clients', body), field);
    expect(await countClients()).toBe(before);
  });

  it('duplicate member names in a JSON body of an OAuth endpoint too (/revoke)', async () => {
    const res = await fetch(`${svc.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(svc.clientId, svc.clientSecret) },
      body: `{"token":"a","token":"${admin}"}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).message).toMatch(/^body\.token: /);
    expect((await manage('GET', '/clients?limit=1')).status).toBe(200); // the token was not revoked
  });

  it('two Authorization headers are a 400, even when both are valid', async () => {
    const raw = async (headers: string[]) =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(svc.url);
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            [`GET /identity/v1/clients HTTP/1.1`, `Host: localhost:${port}`, ...headers, 'Connection: close', '', ''].join('\r\n'),
          );
        });
        let data = '';
        socket.on('data', (d) => (data += d.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
    const twice = await raw([`Authorization: Bearer ${admin}`, `Authorization: Bearer ${admin}`]);
    expect(twice.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(twice).toContain('"message":"header.authorization: must be sent once');
    // Spelled in two cases: still the same field (RFC 9110 §5.1), still sent twice.
    const cased = await raw([`Authorization: Bearer ${admin}`, `authorization: Bearer ${admin}`]);
    expect(cased.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(cased).toContain('"message":"header.authorization: must be sent once');
    const once = await raw([`Authorization: Bearer ${admin}`]);
    expect(once.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});
