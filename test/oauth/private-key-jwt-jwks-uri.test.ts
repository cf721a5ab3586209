import { randomUUID, type webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REFRESH_COOLDOWN_MS } from '#shared/federation/provider-keys.ts';
import { JWT_BEARER_ASSERTION_TYPE } from '#shared/oauth/client-auth/client-assertion.ts';
import { type ClientsFixture, clientsFixture } from '../support/management/clients-fixture.ts';

/**
 * private_key_jwt with the client's keys at a `jwks_uri` (docs/client-authentication.md
 * "private_key_jwt"): a small key server on 127.0.0.1 (plain http to loopback is allowed in local
 * mode only), which counts its reads, rotates its key, hangs, or serves too much. The clock is moved
 * with a fake `Date` (sockets and timers stay real), for jose's 30 s cooldown on unknown kids.
 */
let fx: ClientsFixture;
let api: Awaited<ReturnType<ClientsFixture['createResource']>>;
let server: Server;
let base: string;
/** What the key server answers per path: a key set, `hang`, or a body of this many bytes. */
const served = new Map<string, { keys: JWK[] } | 'hang' | number>();
const reads: string[] = [];

interface Key {
  privateKey: webcrypto.CryptoKey;
  jwk: JWK;
}
async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: 'ES256' } };
}

/** A client at private_key_jwt whose keys are at `{base}{path}`, linked to `api` with `read`. */
async function uriClient(path: string): Promise<string> {
  const made = await fx.createClient({
    client_metadata: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${base}${path}` },
  });
  expect(made.client_metadata).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${base}${path}` });
  await fx.call('POST', `/clients/${made.id}/resources`, { body: { resources: [api.id] } });
  await fx.call('POST', `/clients/${made.id}/permissions`, {
    body: { permissions: [{ resource_id: api.id, scopes: [api.scope('read')] }] },
  });
  return made.id;
}

async function assertion(clientId: string, key: Key): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: clientId, sub: clientId, aud: fx.svc.url, jti: randomUUID(), iat: now, exp: now + 60 })
    .setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid! })
    .sign(key.privateKey);
}

async function tokenWith(jwt: string, url = fx.svc.url) {
  const res = await fetch(`${url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      audience: api.audience,
      client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
      client_assertion: jwt,
    }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

function expectRefused(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  expect(res.headers.get('www-authenticate')).toBeNull();
}

const readsOf = (path: string) => reads.filter((p) => p === path).length;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    reads.push(path);
    const answer = served.get(path);
    if (answer === 'hang') return; // never answers; the service's timeout must end it
    if (answer === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(typeof answer === 'number' ? JSON.stringify({ keys: [], pad: 'x'.repeat(answer) }) : JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fx = await clientsFixture();
  api = await fx.createResource(['read']);
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await fx?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('private_key_jwt with keys at a jwks_uri', () => {
  it('reads the key set once, then from the cache; oauth4webapi authenticates with it', async () => {
    const key = await newKey();
    served.set('/cached', { keys: [key.jwk] });
    const id = await uriClient('/cached');
    expect(readsOf('/cached')).toBe(0);
    expect((await tokenWith(await assertion(id, key))).status).toBe(200);
    expect((await tokenWith(await assertion(id, key))).status).toBe(200);

    const as = await oauth.processDiscoveryResponse(
      new URL(fx.svc.url),
      await oauth.discoveryRequest(new URL(fx.svc.url), { [oauth.allowInsecureRequests]: true }),
    );
    const rp: oauth.Client = { client_id: id };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      rp,
      oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.jwk.kid! }),
      { audience: api.audience },
      { [oauth.allowInsecureRequests]: true },
    );
    const tokens = await oauth.processClientCredentialsResponse(as, rp, response);
    expect(fx.scopesOf(tokens.access_token)).toEqual(['read']);
    expect(readsOf('/cached')).toBe(1);
  });

  it('picks up a key rotated at the client on its unknown kid, at most once per cooldown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const old = await newKey();
    served.set('/rotating', { keys: [old.jwk] });
    const id = await uriClient('/rotating');
    expect((await tokenWith(await assertion(id, old))).status).toBe(200);
    expect(readsOf('/rotating')).toBe(1);

    const next = await newKey();
    served.set('/rotating', { keys: [next.jwk] });
    // Right after the last read: the unknown kid is refused without another read.
    expectRefused(await tokenWith(await assertion(id, next)));
    expect(readsOf('/rotating')).toBe(1);

    vi.setSystemTime(Date.now() + REFRESH_COOLDOWN_MS + 1000);
    expect((await tokenWith(await assertion(id, next))).status).toBe(200);
    expect(readsOf('/rotating')).toBe(2);
    // The new set is cached, and the old key, gone from it, no longer authenticates.
    expect((await tokenWith(await assertion(id, next))).status).toBe(200);
    expectRefused(await tokenWith(await assertion(id, old)));
    expect(readsOf('/rotating')).toBe(2);
  });

  it('a key server that hangs: 401 after the fetch timeout, no 500; then no read during the back-off', async () => {
    const key = await newKey();
    served.set('/hang', 'hang');
    const id = await uriClient('/hang');
    const res = await tokenWith(await assertion(id, key));
    expectRefused(res);
    expect(readsOf('/hang')).toBe(1);
    expectRefused(await tokenWith(await assertion(id, key)));
    expect(readsOf('/hang')).toBe(1);
  });

  it('a key set past the size bound or not JSON: 401', async () => {
    const key = await newKey();
    served.set('/huge', 70 * 1024);
    const huge = await uriClient('/huge');
    expectRefused(await tokenWith(await assertion(huge, key)));
    const gone = await uriClient('/missing');
    expectRefused(await tokenWith(await assertion(gone, key)));
    expect(readsOf('/missing')).toBe(1);
  });
});

describe('a stage that does not allow plain http to loopback (FEDERATION_LOOPBACK_HTTP=false)', () => {
  it('never reads an http jwks_uri: 401', async () => {
    const strict = await clientsFixture({ FEDERATION_LOOPBACK_HTTP: 'false' });
    try {
      const key = await newKey();
      served.set('/strict', { keys: [key.jwk] });
      const made = await strict.createClient({
        client_metadata: { grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${base}/strict` },
      });
      const jwt = await new SignJWT({ iss: made.id, sub: made.id, aud: strict.svc.url, jti: randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: key.jwk.kid! })
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(key.privateKey);
      const res = await fetch(`${strict.svc.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
          client_assertion: jwt,
        }),
      });
      expectRefused({ status: res.status, headers: res.headers, body: await res.json() });
      expect(readsOf('/strict')).toBe(0);
    } finally {
      await strict.stop();
    }
  });
});
