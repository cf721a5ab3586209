import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, getJson, TOTAL_TIMEOUT_MS } from '#shared/federation/fetch-bounded.ts';
import { mayConnectTo } from '#shared/federation/provider-address.ts';

/** docs/federation.md "Reading a provider": public addresses only (no request forgery into our network). */
const options = (allowLoopbackHttp: boolean) => ({
  allowLoopbackHttp,
  connectTimeoutMs: CONNECT_TIMEOUT_MS,
  totalTimeoutMs: TOTAL_TIMEOUT_MS,
});
const limits = { maxBytes: 64 * 1024 };

describe('which addresses a provider may have', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '127.0.0.1',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
  ])('%s is refused', (address) => {
    expect(mayConnectTo(address, false)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is allowed', (address) => {
    expect(mayConnectTo(address, false)).toBe(true);
  });

  it('loopback only in local mode, and nothing else private with it', () => {
    expect(mayConnectTo('127.0.0.1', true)).toBe(true);
    expect(mayConnectTo('::1', true)).toBe(true);
    expect(mayConnectTo('10.0.0.1', true)).toBe(false);
    expect(mayConnectTo('169.254.169.254', true)).toBe(false);
  });

  it('a name is not an address', () => {
    expect(mayConnectTo('localhost', true)).toBe(false);
  });
});

describe('reads refuse a private host before sending anything', () => {
  it('an IP-literal host: the metadata service, a private network, IPv4-mapped IPv6', async () => {
    for (const url of ['https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/jwks', 'https://[::ffff:a00:1]/jwks']) {
      await expect(getJson(new URL(url), limits, options(false))).rejects.toMatchObject({
        name: 'ProviderError',
        reason: 'private_address',
      });
    }
  });

  it('a name that resolves to loopback is refused outside local mode, and no request reaches the server', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // `localhost` is looked up (the literal check cannot see it): the socket's lookup refuses it.
      await expect(getJson(new URL(`https://localhost:${port}/jwks`), limits, options(false))).rejects.toMatchObject({
        reason: 'private_address',
        message: expect.stringContaining('not a public address'),
      });
      expect(requests).toBe(0);
      // Local mode: the same server over loopback http is read.
      await expect(getJson(new URL(`http://localhost:${port}/jwks`), limits, options(true))).resolves.toEqual({});
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });
});
