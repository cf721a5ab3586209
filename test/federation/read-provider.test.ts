import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '#shared/federation/federation-errors.ts';
import { boundedJsonGetter, CONNECT_TIMEOUT_MS, TOTAL_TIMEOUT_MS } from '#shared/federation/fetch-bounded.ts';
import { JWKS_MAX_BYTES, MAX_KEYS_PER_SET } from '#shared/federation/provider-keys.ts';
import { fetchProviderMetadata, METADATA_MAX_BYTES } from '#shared/federation/provider-metadata.ts';
import { checkProviderUrl } from '#shared/federation/provider-url.ts';
import { verifyProviderIdToken } from '#shared/federation/verify-provider-id-token.ts';
import { type ExternalProvider, providerKeyCache, startExternalProvider } from '../support/oauth/external-provider.ts';

/**
 * Reading a provider that misbehaves (docs/federation.md "Reading a provider"): every failure is a
 * `ProviderError` with its reason, fast when the provider refuses, within the total timeout when
 * it never answers, and never a read of a URL the policy refuses. The provider is a real
 * oidc-provider on a loopback port; requests are counted in its own log.
 */
let provider: ExternalProvider;
const local = { allowLoopbackHttp: true };
const fetchJson = boundedJsonGetter({ ...local, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: TOTAL_TIMEOUT_MS });

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as { port: number };
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

beforeAll(async () => {
  provider = await startExternalProvider();
});
afterAll(async () => {
  await provider.stop();
});

describe('the discovery document', () => {
  it('is read and checked: issuer, endpoints, algorithms', async () => {
    const metadata = await fetchProviderMetadata(provider.issuer, fetchJson, local);
    expect(metadata).toMatchObject({
      issuer: provider.issuer,
      authorization_endpoint: `${provider.issuer}/auth`,
      token_endpoint: `${provider.issuer}/token`,
      jwks_uri: provider.jwksUri,
      id_token_signing_alg_values_supported: ['ES256'],
    });
    expect(provider.requests.at(-1)).toBe('/.well-known/openid-configuration');
  });

  it('is refused when its issuer differs from the configured one, even by a trailing slash or host name', async () => {
    for (const configured of [`${provider.issuer}/`, provider.issuer.replace('127.0.0.1', 'localhost')]) {
      const error = await failure(fetchProviderMetadata(configured, fetchJson, local));
      expect(error.reason).toBe('issuer_mismatch');
      expect(error.message).toBe(
        `The discovery document at ${configured.replace(/\/$/, '')}/.well-known/openid-configuration names the issuer ${provider.issuer}, not ${configured}.`,
      );
    }
  });

  it('is read at a configured discovery URL, and its issuer is still checked against the configured one', async () => {
    const at = `${provider.issuer}/.well-known/openid-configuration`;
    await expect(providerKeyCache().keysOf({ issuer: provider.issuer, discoveryUrl: at })).resolves.toMatchObject({
      jwksUri: provider.jwksUri,
    });
    const error = await failure(providerKeyCache().keysOf({ issuer: 'http://127.0.0.1:1/other', discoveryUrl: at }));
    expect(error).toMatchObject({
      reason: 'issuer_mismatch',
      message: `The discovery document at ${at} names the issuer ${provider.issuer}, not http://127.0.0.1:1/other.`,
    });
  });

  it('is refused when it names a jwks_uri the URL policy refuses, or lacks a required member', async () => {
    // The provider's own document, its jwks_uri or id_token_signing_alg_values_supported altered by a front.
    const real = (await fetchJson(new URL(`${provider.issuer}/.well-known/openid-configuration`), {
      maxBytes: METADATA_MAX_BYTES,
    })) as Record<string, unknown>;
    let served: Record<string, unknown> = {};
    const front = createHttpServer(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served)),
    );
    await new Promise<void>((res) => front.listen(0, '127.0.0.1', res));
    const issuer = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
    try {
      served = { ...real, issuer, jwks_uri: 'http://keys.example.com/jwks' };
      expect((await failure(providerKeyCache().keysOf({ issuer }))).reason).toBe('not_https');
      served = { ...real, issuer, id_token_signing_alg_values_supported: undefined };
      expect(await failure(fetchProviderMetadata(issuer, fetchJson, local))).toMatchObject({
        reason: 'bad_metadata',
        message: `The discovery document of ${issuer} is invalid at id_token_signing_alg_values_supported: Invalid key: Expected "id_token_signing_alg_values_supported" but received undefined`,
      });
    } finally {
      await new Promise<void>((res) => front.close(() => res()));
    }
  });

  it('is refused when the URL answers 404 (bad_status)', async () => {
    const error = await failure(fetchProviderMetadata(`${provider.issuer}/tenant-x`, fetchJson, local));
    expect(error).toMatchObject({
      reason: 'bad_status',
      message: `${provider.issuer}/tenant-x/.well-known/openid-configuration answered 404, not 200.`,
    });
  });
});

describe('the URL policy', () => {
  it('refuses http to a host that is not loopback, and loopback http outside local mode, without a request', async () => {
    const before = provider.requests.length;
    expect(await failure(fetchProviderMetadata('http://idp.example.com', fetchJson, local))).toMatchObject({
      reason: 'not_https',
      message: 'The provider URL http://idp.example.com is not https (plain http is allowed only to loopback in local mode).',
    });
    const strict = boundedJsonGetter({ allowLoopbackHttp: false, connectTimeoutMs: CONNECT_TIMEOUT_MS, totalTimeoutMs: TOTAL_TIMEOUT_MS });
    expect((await failure(fetchProviderMetadata(provider.issuer, strict, { allowLoopbackHttp: false }))).reason).toBe('not_https');
    // The adapter holds the policy too, whoever built the URL.
    expect((await failure(strict(new URL(provider.jwksUri), { maxBytes: 1000 }))).reason).toBe('not_https');
    const cache = providerKeyCache({ allowLoopbackHttp: false });
    expect((await failure(cache.keysOf({ issuer: provider.issuer }))).reason).toBe('not_https');
    expect(provider.requests.length).toBe(before);
  });

  it('allows https anywhere and http to 127.0.0.0/8, ::1 and localhost in local mode only', () => {
    expect(checkProviderUrl('https://idp.example.com/tenant', { allowLoopbackHttp: false }).href).toBe('https://idp.example.com/tenant');
    for (const url of ['http://127.0.0.1:9000', 'http://127.8.9.10', 'http://[::1]:9000', 'http://localhost:9000']) {
      expect(checkProviderUrl(url, local).protocol).toBe('http:');
      expect(() => checkProviderUrl(url, { allowLoopbackHttp: false })).toThrow(ProviderError);
    }
    for (const [url, reason] of [
      ['http://128.0.0.1', 'not_https'],
      ['http://localhost.evil.example', 'not_https'],
      ['ftp://idp.example.com', 'not_https'],
      ['https://user:pw@idp.example.com', 'bad_url'],
      ['https://idp.example.com/#x', 'bad_url'],
      ['idp.example.com', 'bad_url'],
      [`https://idp.example.com/${'a'.repeat(2048)}`, 'bad_url'],
    ] as const) {
      expect(() => checkProviderUrl(url, local), url).toThrow(expect.objectContaining({ reason }));
    }
  });
});

describe('a provider that is down, slow or too large', () => {
  it('refuses the connection: a fast unreachable error', async () => {
    const issuer = `http://127.0.0.1:${await closedPort()}`;
    const started = performance.now();
    const error = await failure(providerKeyCache().keysOf({ issuer }));
    expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS);
    expect(error).toMatchObject({
      reason: 'unreachable',
      message: `${issuer}/.well-known/openid-configuration is unreachable (ECONNREFUSED).`,
    });
  });

  it('takes no connection: a connect timeout, within the connect bound', async () => {
    // A stopped process listening with a backlog of 1: once its accept queue is full, the kernel
    // drops further SYNs, as a firewalled or overloaded host does.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => console.log(s.address().port))",
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const fillers: ReturnType<typeof connect>[] = [];
    try {
      const port = await new Promise<number>((res) => child.stdout.once('data', (d) => res(Number(String(d).trim()))));
      child.kill('SIGSTOP');
      for (let i = 0; i < 4; i++) fillers.push(connect(port, '127.0.0.1').on('error', () => undefined));
      await new Promise((res) => setTimeout(res, 200));
      const issuer = `http://127.0.0.1:${port}`;
      const started = performance.now();
      const error = await failure(providerKeyCache().keysOf({ issuer }));
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 5);
      expect(elapsed).toBeLessThan(CONNECT_TIMEOUT_MS + 500);
      expect(error).toMatchObject({
        reason: 'connect_timeout',
        message: `${issuer}/.well-known/openid-configuration: no connection within ${CONNECT_TIMEOUT_MS} ms.`,
      });
    } finally {
      for (const f of fillers) f.destroy();
      child.kill('SIGKILL');
    }
  });

  it('never answers: a timeout within the total bound, then no second wait during the back-off', async () => {
    const slow = await startExternalProvider();
    try {
      slow.hang();
      const cache = providerKeyCache();
      const started = performance.now();
      const error = await failure(cache.keysOf({ issuer: slow.issuer }));
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TOTAL_TIMEOUT_MS - 5);
      expect(elapsed).toBeLessThan(TOTAL_TIMEOUT_MS + 750);
      expect(error).toMatchObject({
        reason: 'timeout',
        message: `${slow.issuer}/.well-known/openid-configuration did not answer within ${TOTAL_TIMEOUT_MS} ms.`,
      });
      const again = performance.now();
      expect(await failure(cache.keysOf({ issuer: slow.issuer }))).toBe(error);
      expect(performance.now() - again).toBeLessThan(CONNECT_TIMEOUT_MS);
      expect(slow.requests).toEqual(['/.well-known/openid-configuration']);
    } finally {
      await slow.stop();
    }
  });

  it('hangs on its JWKS: the token is refused with the timeout, not with a wait beyond the bound', async () => {
    const slow = await startExternalProvider();
    try {
      const keys = await providerKeyCache().keysOf({ issuer: slow.issuer });
      const token = await slow.mintIdToken({ sub: 'a' });
      slow.hang();
      const started = performance.now();
      const error = await failure(verifyProviderIdToken(token, keys, { audience: slow.clientId }));
      expect(performance.now() - started).toBeLessThan(TOTAL_TIMEOUT_MS + 750);
      expect(error).toMatchObject({ reason: 'timeout', message: `${slow.jwksUri} did not answer within ${TOTAL_TIMEOUT_MS} ms.` });
      // During the back-off the next token fails at once, without another request.
      const again = performance.now();
      expect(await failure(verifyProviderIdToken(token, keys, { audience: slow.clientId }))).toBe(error);
      expect(performance.now() - again).toBeLessThan(CONNECT_TIMEOUT_MS);
      expect(slow.requests.filter((p) => p === '/jwks')).toHaveLength(1);
    } finally {
      await slow.stop();
    }
  });

  it('serves a JWKS over the size bound (too_large) or with too many keys (bad_jwks)', async () => {
    const big = await startExternalProvider();
    try {
      const token = await big.mintIdToken({ sub: 'a' });
      const real = JSON.parse(await (await fetch(big.jwksUri)).text()) as { keys: unknown[] };
      const huge = JSON.stringify({ keys: Array.from({ length: 2000 }, () => real.keys[0]) });
      expect(huge.length).toBeGreaterThan(JWKS_MAX_BYTES);
      // Announced (content-length: refused before reading) or chunked (refused once the bound is crossed).
      for (const chunked of [false, true]) {
        big.serveJwks(huge, { chunked });
        const error = await failure(
          verifyProviderIdToken(token, await providerKeyCache().keysOf({ issuer: big.issuer }), { audience: big.clientId }),
        );
        expect(error).toMatchObject({ reason: 'too_large', message: `${big.jwksUri} answered more than ${JWKS_MAX_BYTES} bytes.` });
      }

      big.serveJwks(JSON.stringify({ keys: Array.from({ length: MAX_KEYS_PER_SET + 1 }, () => real.keys[0]) }));
      const many = await failure(
        verifyProviderIdToken(token, await providerKeyCache().keysOf({ issuer: big.issuer }), { audience: big.clientId }),
      );
      expect(many).toMatchObject({ reason: 'bad_jwks', message: `The JWKS at ${big.jwksUri} holds more than ${MAX_KEYS_PER_SET} keys.` });

      big.serveJwks('{"keys": [');
      expect(
        (await failure(verifyProviderIdToken(token, await providerKeyCache().keysOf({ issuer: big.issuer }), { audience: big.clientId })))
          .reason,
      ).toBe('bad_json');
      big.serveJwks(JSON.stringify({ keys: 'none' }));
      expect(
        (await failure(verifyProviderIdToken(token, await providerKeyCache().keysOf({ issuer: big.issuer }), { audience: big.clientId })))
          .reason,
      ).toBe('bad_jwks');
    } finally {
      await big.stop();
    }
  });

  it('redirects (never followed) or answers something other than JSON', async () => {
    // A front of the provider: one path redirects to the provider's real JWKS, another answers HTML.
    const front = createHttpServer((req, res) => {
      if (req.url === '/moved') return void res.writeHead(302, { location: provider.jwksUri }).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    });
    await new Promise<void>((res) => front.listen(0, '127.0.0.1', res));
    const origin = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
    try {
      const before = provider.requests.length;
      expect(await failure(fetchJson(new URL(`${origin}/moved`), { maxBytes: JWKS_MAX_BYTES }))).toMatchObject({
        reason: 'redirect',
        message: `${origin}/moved answered a redirect (302); none is followed.`,
      });
      expect(provider.requests.length).toBe(before);
      expect(await failure(fetchJson(new URL(`${origin}/page`), { maxBytes: JWKS_MAX_BYTES }))).toMatchObject({
        reason: 'not_json',
        message: `${origin}/page answered text/html, not JSON.`,
      });
    } finally {
      await new Promise<void>((res) => front.close(() => res()));
    }
  });

  it('answers a discovery document over the metadata bound (too_large), under it as JSON', async () => {
    const url = new URL(`${provider.issuer}/.well-known/openid-configuration`);
    expect((await failure(fetchJson(url, { maxBytes: 100 }))).reason).toBe('too_large');
    await expect(fetchJson(url, { maxBytes: METADATA_MAX_BYTES })).resolves.toMatchObject({ issuer: provider.issuer });
  });
});
