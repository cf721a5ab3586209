import { describe, expect, it } from 'vitest';
import { generateClientSecret, hashClientSecret, verifyClientSecret } from '#shared/crypto/client-secret.ts';
import { authenticateClient } from '#shared/oauth/authenticate-client.ts';
import type { OAuthClient } from '#shared/oauth/oauth-deps.ts';

const secret = generateClientSecret();
const confidential: OAuthClient = {
  id: 'c1',
  tenant_id: 't',
  is_public: false,
  is_global: true,
  grant_types: ['client_credentials'],
  secret_hash: hashClientSecret(secret),
  client_secret_expires_at: null,
  resources: new Set(),
  grants: new Map(),
  refresh_token: { expiration_enabled: false, expiration_lifetime: 2_592_000 },
  id_token_lifetime: 36_000,
  redirect_uris: [],
  is_first_party: false,
  token_endpoint_auth_method: undefined,
  jwks: undefined,
  jwks_uri: undefined,
  id_token_signed_response_alg: 'RS256',
  require_pushed_authorization_requests: false,
  dpop_bound_access_tokens: false,
};
const publicClient: OAuthClient = { ...confidential, id: 'p1', is_public: true, secret_hash: undefined };
const deps = {
  findClient: async (id: string) => [confidential, publicClient].find((c) => c.id === id),
  now: () => new Date('2026-01-01T00:00:00Z'),
  // Assertions have their own tests (private-key-jwt*.test.ts); none is sent here.
  clientAssertions: async () => async () => false,
};
const basic = (id: string, s: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(s)}`).toString('base64')}`;

describe('client authentication (RFC 6749 §2.3)', () => {
  it('secrets are 256-bit and verify only against their own hash', () => {
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(verifyClientSecret(secret, hashClientSecret(secret))).toBe(true);
    expect(verifyClientSecret(`${secret}x`, hashClientSecret(secret))).toBe(false);
    expect(verifyClientSecret(secret, undefined)).toBe(false);
  });

  it('§2.3.1 accepts client_secret_basic and client_secret_post', async () => {
    await expect(authenticateClient({ authorization: basic('c1', secret) }, {}, deps, '/token')).resolves.toMatchObject({
      method: 'client_secret_basic',
    });
    await expect(authenticateClient({}, { client_id: 'c1', client_secret: secret }, deps, '/token')).resolves.toMatchObject({
      method: 'client_secret_post',
    });
  });

  it('a wrong secret, an unknown client, or no credentials is 401 invalid_client', async () => {
    for (const [headers, body] of [
      [{ authorization: basic('c1', 'wrong') }, {}],
      [{}, { client_id: 'nobody', client_secret: secret }],
      [{}, {}],
      [{}, { client_id: 'c1' }],
    ] as const) {
      await expect(authenticateClient(headers, body, deps, '/token')).rejects.toMatchObject({ status: 401, code: 'invalid_client' });
    }
  });

  it('§2.3 refuses two methods at once', async () => {
    await expect(
      authenticateClient({ authorization: basic('c1', secret) }, { client_secret: secret }, deps, '/token'),
    ).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
  });

  it('a public client authenticates with its id only, and never with a secret', async () => {
    await expect(authenticateClient({}, { client_id: 'p1' }, deps, '/token')).resolves.toMatchObject({ method: 'none' });
    await expect(authenticateClient({}, { client_id: 'p1', client_secret: 'x' }, deps, '/token')).rejects.toMatchObject({
      code: 'invalid_client',
    });
  });

  it('an expired secret is refused', async () => {
    const expired = { ...confidential, client_secret_expires_at: '2025-12-31T23:59:59.000Z' };
    await expect(
      authenticateClient({ authorization: basic('c1', secret) }, {}, { ...deps, findClient: async () => expired }, '/token'),
    ).rejects.toMatchObject({
      code: 'invalid_client',
    });
  });
});
