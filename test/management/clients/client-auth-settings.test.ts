import { randomUUID, type webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWT_BEARER_ASSERTION_TYPE } from '#shared/oauth/client-auth/client-assertion.ts';
import { type ClientsFixture, clientsFixture, type Reply } from '../../support/management/clients-fixture.ts';

/**
 * The client-authentication members of `client_metadata` through the Clients API
 * (docs/client-authentication.md "Client authentication methods", docs/management-clients.md):
 * RFC 7591 §2's rules between them (400 naming the member, nothing stored), a change of them is a
 * key change (`update:client_keys`, and no taking over a client that holds more than the caller:
 * docs/contract.md §8), and the Default Client keeps its secret.
 */
let fx: ClientsFixture;
let sys: string;
const scopeIds = new Map<string, string>();

async function publicJwk(): Promise<{ jwk: JWK; privateKey: webcrypto.CryptoKey }> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { jwk: { ...(await exportJWK(publicKey)), kid: randomUUID(), alg: 'ES256' }, privateKey };
}

function expect400(r: Reply, field: string) {
  expect(r.status).toBe(400);
  expect(r.body.code).toBe('invalid_request');
  expect(r.body.message).toContain(field);
}

function expectInsufficientScope(r: Reply, scope: string) {
  expect(r.status).toBe(403);
  expect(r.body.code).toBe('insufficient_scope');
  expect(r.body.message).toContain(scope);
  expect(r.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
}

const metadataOf = async (id: string) => (await fx.call('GET', `/clients/${id}`)).body.client_metadata;
const AUTH_MEMBERS = ['token_endpoint_auth_method', 'jwks', 'jwks_uri'] as const;
const authOf = (metadata: Record<string, unknown>) => Object.fromEntries(AUTH_MEMBERS.map((m) => [m, metadata[m]]));

beforeAll(async () => {
  fx = await clientsFixture();
  const resources = await fx.call('GET', '/resources?limit=100');
  sys = resources.body.items.find((r: any) => r.resource_metadata.is_system).id;
  const scopes = await fx.call('GET', `/resources/${sys}/scopes?limit=100`);
  for (const s of scopes.body.items) scopeIds.set(s.scope_name, s.id);
});
afterAll(async () => fx?.stop());

describe('creating a client with the client-authentication members', () => {
  it('private_key_jwt with jwks, or with jwks_uri: 201, and GET shows them as stored', async () => {
    const { jwk } = await publicJwk();
    const inline = await fx.createClient({ client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } } });
    expect(inline.client_metadata).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } });
    // A confidential client keeps a secret (unused while its method is private_key_jwt).
    expect(inline.client_secret).toEqual(expect.any(String));
    expect(authOf(await metadataOf(inline.id))).toEqual({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
      jwks_uri: undefined,
    });

    const byUri = await fx.createClient({
      client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://keys.example.com/jwks.json' },
    });
    expect(authOf(await metadataOf(byUri.id))).toEqual({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: undefined,
      jwks_uri: 'https://keys.example.com/jwks.json',
    });

    const pub = await fx.createClient({
      is_public: true,
      client_metadata: { token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] },
    });
    expect(pub.client_metadata.token_endpoint_auth_method).toBe('none');
    const basic = await fx.createClient({ client_metadata: { token_endpoint_auth_method: 'client_secret_post' } });
    expect(basic.client_metadata.token_endpoint_auth_method).toBe('client_secret_post');
  });

  it('refuses what RFC 7591 §2 rules out, naming the member, and stores nothing', async () => {
    const { jwk } = await publicJwk();
    const cases: [string, Record<string, unknown>, string][] = [
      [
        'private_key_jwt without keys',
        { client_metadata: { token_endpoint_auth_method: 'private_key_jwt' } },
        'body.client_metadata.token_endpoint_auth_method',
      ],
      [
        'jwks and jwks_uri together',
        {
          client_metadata: {
            token_endpoint_auth_method: 'private_key_jwt',
            jwks: { keys: [jwk] },
            jwks_uri: 'https://keys.example.com/jwks',
          },
        },
        'body.client_metadata.jwks_uri',
      ],
      [
        'a public client at private_key_jwt',
        {
          is_public: true,
          client_metadata: { grant_types: ['authorization_code'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } },
        },
        'body.client_metadata.token_endpoint_auth_method',
      ],
      [
        'a public client at client_secret_basic',
        { is_public: true, client_metadata: { grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic' } },
        'body.client_metadata.token_endpoint_auth_method',
      ],
      [
        'a confidential client at none',
        { client_metadata: { token_endpoint_auth_method: 'none' } },
        'body.client_metadata.token_endpoint_auth_method',
      ],
      [
        'an unknown method',
        { client_metadata: { token_endpoint_auth_method: 'client_secret_jwt' } },
        'body.client_metadata.token_endpoint_auth_method',
      ],
      [
        'a private key in jwks',
        { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...jwk, d: 'secret' }] } } },
        'body.client_metadata.jwks',
      ],
      [
        'a plain http jwks_uri',
        { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://keys.example.com/jwks' } },
        'body.client_metadata.jwks_uri',
      ],
    ];
    for (const [what, body, field] of cases) {
      const name = `refused ${randomUUID()}`;
      const res = await fx.call('POST', '/clients', { body: { client_name: name, ...body } });
      expect([what, res.status]).toEqual([what, 400]);
      expect400(res, field);
      const listed = await fx.call('GET', '/clients?limit=100');
      expect(listed.body.items.filter((c: any) => c.client_name === name)).toEqual([]);
    }
  });
});

describe('changing them with PATCH', () => {
  it('checks the merged client: a key method needs keys, never both kinds; null clears back to the defaults', async () => {
    const { jwk } = await publicJwk();
    const c = await fx.createClient();
    const patch = (client_metadata: Record<string, unknown>) => fx.call('PATCH', `/clients/${c.id}`, { body: { client_metadata } });

    expect400(await patch({ token_endpoint_auth_method: 'private_key_jwt' }), 'body.client_metadata.token_endpoint_auth_method');
    expect400(await patch({ token_endpoint_auth_method: 'none' }), 'body.client_metadata.token_endpoint_auth_method');
    expect(authOf(await metadataOf(c.id))).toEqual({ token_endpoint_auth_method: undefined, jwks: undefined, jwks_uri: undefined });

    // Keys first, then the method: each PATCH is checked on the merge.
    expect((await patch({ jwks: { keys: [jwk] } })).status).toBe(200);
    const set = await patch({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(set.status).toBe(200);
    expect(set.body.client_metadata).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } });

    expect400(await patch({ jwks_uri: 'https://keys.example.com/jwks' }), 'body.client_metadata.jwks_uri');
    expect400(await patch({ jwks: null }), 'body.client_metadata.token_endpoint_auth_method');
    // Swapping jwks for jwks_uri in one PATCH is fine.
    const swapped = await patch({ jwks: null, jwks_uri: 'https://keys.example.com/jwks' });
    expect(swapped.status).toBe(200);
    expect(authOf(await metadataOf(c.id))).toEqual({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: undefined,
      jwks_uri: 'https://keys.example.com/jwks',
    });

    // null clears: back to the secret methods.
    expect((await patch({ token_endpoint_auth_method: null, jwks_uri: null })).status).toBe(200);
    const cleared = await metadataOf(c.id);
    expect([cleared.token_endpoint_auth_method ?? null, cleared.jwks_uri ?? null]).toEqual([null, null]);
    expect((await fx.token(c.id, c.client_secret, 'https://unknown.example/')).body.error).toBe('invalid_target');
  });

  it('a public client turning confidential may not keep none', async () => {
    const pub = await fx.createClient({
      is_public: true,
      client_metadata: { grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' },
    });
    const res = await fx.call('PATCH', `/clients/${pub.id}`, { body: { is_public: false } });
    expect400(res, 'body.client_metadata.token_endpoint_auth_method');
    expect((await fx.call('GET', `/clients/${pub.id}`)).body.is_public).toBe(true);
  });

  it('is a key change: update:clients alone gets 403 update:client_keys, other fields still change', async () => {
    const { jwk } = await publicJwk();
    const c = await fx.createClient();
    const caller = await fx.svc.managementToken('read:clients update:clients');
    const tried = await fx.call('PATCH', `/clients/${c.id}`, {
      token: caller,
      body: { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } } },
    });
    expectInsufficientScope(tried, 'update:client_keys');
    expect(authOf(await metadataOf(c.id))).toEqual({ token_endpoint_auth_method: undefined, jwks: undefined, jwks_uri: undefined });
    for (const client_metadata of [{ jwks_uri: 'https://keys.example.com/jwks' }, { token_endpoint_auth_method: 'client_secret_post' }]) {
      expectInsufficientScope(
        await fx.call('PATCH', `/clients/${c.id}`, { token: caller, body: { client_metadata } }),
        'update:client_keys',
      );
    }
    // Not a key change: the name, or the members sent as they are.
    const renamed = await fx.call('PATCH', `/clients/${c.id}`, {
      token: caller,
      body: { client_name: 'renamed', client_metadata: { token_endpoint_auth_method: null } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.client_name).toBe('renamed');

    const keys = await fx.svc.managementToken('read:clients update:clients update:client_keys');
    const done = await fx.call('PATCH', `/clients/${c.id}`, {
      token: keys,
      body: { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } } },
    });
    expect(done.status).toBe(200);
    expect(authOf(await metadataOf(c.id))).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } });
  });

  it('no takeover: a caller cannot put its own key on a client that holds management scopes it lacks', async () => {
    // The victim: a client holding read:users on the management API.
    const victim = await fx.createClient({ client_metadata: { grant_types: ['client_credentials'] } });
    expect((await fx.call('POST', `/clients/${victim.id}/resources`, { body: { resources: [sys] } })).status).toBe(204);
    const grant = { permissions: [{ resource_id: sys, scopes: [scopeIds.get('read:users')!] }] };
    expect((await fx.call('POST', `/clients/${victim.id}/permissions`, { body: grant })).status).toBe(204);
    const attacker = await publicJwk();
    const body = { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [attacker.jwk] } } };

    // update:clients only: no key change at all.
    const onlyUpdate = await fx.svc.managementToken('update:clients');
    expectInsufficientScope(await fx.call('PATCH', `/clients/${victim.id}`, { token: onlyUpdate, body }), 'update:client_keys');
    // With update:client_keys but without the victim's read:users: still refused.
    const withKeys = await fx.svc.managementToken('update:clients update:client_keys');
    expectInsufficientScope(await fx.call('PATCH', `/clients/${victim.id}`, { token: withKeys, body }), 'read:users');
    expect(authOf(await metadataOf(victim.id))).toEqual({ token_endpoint_auth_method: undefined, jwks: undefined, jwks_uri: undefined });

    // And the attacker's key does not authenticate as the victim.
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({ iss: victim.id, sub: victim.id, aud: fx.svc.url, jti: randomUUID(), iat: now, exp: now + 60 })
      .setProtectedHeader({ alg: 'ES256', kid: attacker.jwk.kid! })
      .sign(attacker.privateKey);
    const res = await fetch(`${fx.svc.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        audience: fx.svc.managementAudience,
        client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
        client_assertion: jwt,
      }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBe('invalid_client');
  });

  it('a client linked to the management API: changing its keys needs every management scope', async () => {
    const linked = await fx.createClient({ client_metadata: { grant_types: ['client_credentials'] } });
    expect((await fx.call('POST', `/clients/${linked.id}/resources`, { body: { resources: [sys] } })).status).toBe(204);
    const { jwk } = await publicJwk();
    const caller = await fx.svc.managementToken('read:clients update:clients update:client_keys');
    const tried = await fx.call('PATCH', `/clients/${linked.id}`, {
      token: caller,
      body: { client_metadata: { jwks: { keys: [jwk] } } },
    });
    expect(tried.status).toBe(403);
    expect(tried.body.code).toBe('insufficient_scope');
    expect((await metadataOf(linked.id)).jwks).toBeUndefined();
    // The administrator holding every scope may.
    expect((await fx.call('PATCH', `/clients/${linked.id}`, { body: { client_metadata: { jwks: { keys: [jwk] } } } })).status).toBe(200);
  });

  it('the Default Client keeps its secret: private_key_jwt is refused for it (403)', async () => {
    const { jwk } = await publicJwk();
    const res = await fx.call('PATCH', `/clients/${fx.svc.clientId}`, {
      body: { client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } } },
    });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('body.client_metadata.token_endpoint_auth_method');
    expect((await metadataOf(fx.svc.clientId)).token_endpoint_auth_method).toBeUndefined();
    expect((await fx.svc.managementToken('read:clients')).length).toBeGreaterThan(0);
  });
});

describe('concurrent PATCHes of the key members', () => {
  it('never leave a private_key_jwt client without keys: the rule holds on the record each write lands on', async () => {
    const { jwk } = await publicJwk();
    const uri = 'https://keys.example.com/race.json';
    for (let round = 0; round < 8; round++) {
      const client = await fx.createClient({ client_metadata: { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: uri } });
      // Each is valid on the record as read; applied one over the other they would leave no key
      // (jwks and jwks_uri both cleared), so the later one must be checked against the merge it lands on.
      const [swap, clear] = await Promise.all([
        fx.call('PATCH', `/clients/${client.id}`, { body: { client_metadata: { jwks_uri: null, jwks: { keys: [jwk] } } } }),
        fx.call('PATCH', `/clients/${client.id}`, { body: { client_metadata: { jwks: null } } }),
      ]);
      expect(swap.status).toBe(200);
      expect([200, 400]).toContain(clear.status);
      // Whichever order they landed in, the one stored state that keeps both valid: the swap's.
      if (clear.status === 400) expect400(clear, 'body.client_metadata');
      expect(authOf(await metadataOf(client.id))).toEqual({
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [jwk] },
        jwks_uri: undefined,
      });
    }
  });
});
