import { createHmac, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityProviderView } from '#shared/records/identity-provider-record.ts';
import { type ExternalProvider, startExternalProvider } from '../support/oauth/external-provider.ts';
import {
  ACCESS_TOKEN_TYPE,
  craftIdToken,
  EXCHANGE,
  ID_TOKEN_TYPE,
  linkedUserId,
  postToken,
  registerProvider,
  uniqueEmail,
  usersWithEmail,
} from '../support/oauth/token-exchange.ts';
import { startTestService, type TestService } from '../support/service/local-service.ts';
import { managementCaller } from '../support/service/management-api.ts';

/**
 * What a token exchange must refuse (docs/contract.md §7.7: any problem with the subject token is
 * 400 `invalid_request`, RFC 8693 §2.2.2), each against a real external provider (node-oidc-provider
 * on loopback) registered as the tenant's identity provider, and each leaving nothing stored: no
 * user with the token's email, no identity for its `sub`.
 */
let svc: TestService;
let external: ExternalProvider;
let idp: IdentityProviderView;
let publicId: string;

beforeAll(async () => {
  external = await startExternalProvider({ alg: 'RS256' });
  svc = await startTestService();
  idp = await registerProvider(svc, external, { provider_name: 'acme' });
  const call = managementCaller(svc.url, await svc.managementToken());
  const res = await call('POST', '/clients', {
    body: { client_name: 'exchange spa', is_public: true, client_metadata: { grant_types: ['token_exchange'] } },
  });
  publicId = res.body.id;
});
afterAll(async () => {
  await svc?.stop();
  await external?.stop();
});

const exchange = (params: Record<string, string>) => postToken(svc, { grant_type: EXCHANGE, client_id: publicId, ...params });
const now = () => Math.floor(Date.now() / 1000);
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** A refusal: 400 invalid_request naming the field, no token, no-store, and nothing stored for this person. */
async function expectRefused(
  subject_token: string,
  person: { sub: string; email: string },
  params: Record<string, string> = {},
  provider: IdentityProviderView = idp,
) {
  const res = await exchange({ subject_token, subject_token_type: 'acme', ...params });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ code: 'invalid_request', error: 'invalid_request' });
  expect(res.body.error_description).toMatch(/^(body|header)\.[a-z_]+: /);
  expect(res.body).not.toHaveProperty('access_token');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(await linkedUserId(svc, provider.id, person.sub)).toBeUndefined();
  expect(await usersWithEmail(svc, person.email)).toEqual([]);
  return res;
}

const someone = () => ({ sub: `sub-${crypto.randomUUID()}`, email: uniqueEmail() });

describe('subject tokens refused with invalid_request, nothing stored (docs/contract.md §7.7)', () => {
  it('expired (past the 60 s tolerance)', async () => {
    const p = someone();
    const token = await craftIdToken(external, { ...p, iat: now() - 7200, exp: now() - 3600 });
    const res = await expectRefused(token, p);
    expect(res.body.error_description).toBe('body.subject_token: The ID token has expired.');
  });

  it('not yet valid: nbf, or iat, in the future', async () => {
    const p = someone();
    expect((await expectRefused(await craftIdToken(external, { ...p, nbf: now() + 600 }), p)).body.error_description).toContain('nbf');
    expect(
      (await expectRefused(await craftIdToken(external, { ...p, iat: now() + 600, exp: now() + 1200 }), p)).body.error_description,
    ).toContain('iat');
  });

  it('for another audience, or issued to another party (azp)', async () => {
    const p = someone();
    expect((await expectRefused(await craftIdToken(external, { ...p, aud: 'someone-else' }), p)).body.error_description).toContain('aud');
    expect(
      (await expectRefused(await craftIdToken(external, { ...p, aud: [external.clientId, 'x'], azp: 'x' }), p)).body.error_description,
    ).toContain('azp');
  });

  it('from another issuer, named as this provider; and by the id_token URN, an issuer no provider has', async () => {
    const p = someone();
    const token = await craftIdToken(external, { ...p, iss: 'https://evil.example.com' });
    expect((await expectRefused(token, p)).body.error_description).toContain('iss');
    const byIssuer = await expectRefused(token, p, { subject_token_type: ID_TOKEN_TYPE });
    expect(byIssuer.body.error_description).toBe('body.subject_token_type: names no enabled identity provider of this tenant.');
  });

  it("signed by a foreign key under the provider's kid", async () => {
    const p = someone();
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const res = await expectRefused(await craftIdToken(external, p, {}, foreign), p);
    expect(res.body.error_description).toBe("body.subject_token: The ID token's signature is invalid.");
  });

  it("alg none, and HS256 keyed with the provider's public key (key confusion)", async () => {
    const p = someone();
    const claims = { iss: external.issuer, aud: external.clientId, iat: now(), exp: now() + 600, ...p };
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    expect((await expectRefused(none, p)).body.error_description).toContain('algorithm');
    const head = `${b64({ alg: 'HS256', kid: external.kid, typ: 'JWT' })}.${b64(claims)}`;
    const secret = external.publicKey.export({ format: 'pem', type: 'spki' });
    const hs = `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
    expect((await expectRefused(hs, p)).body.error_description).toContain('algorithm');
    expect((await expectRefused(hs, p, { subject_token_type: ID_TOKEN_TYPE })).status).toBe(400);
  });

  it('a disabled provider is as unknown as an absent one; so is a name of no provider', async () => {
    const disabled = await registerProvider(svc, external, { provider_name: 'acme-off', enabled: false, audience: 'off-audience' });
    const p = someone();
    const token = await craftIdToken(external, { ...p, aud: 'off-audience' });
    const off = await expectRefused(token, p, { subject_token_type: 'acme-off' }, disabled);
    expect(off.body.error_description).toBe('body.subject_token_type: names no enabled identity provider of this tenant.');
    // By issuer, the disabled provider is not a candidate either.
    await expectRefused(token, p, { subject_token_type: ID_TOKEN_TYPE }, disabled);
    const unknown = await expectRefused(await craftIdToken(external, p), p, { subject_token_type: 'nobody' });
    expect(unknown.body.error_description).toBe('body.subject_token_type: names no enabled identity provider of this tenant.');
  });

  it('unsupported token types, a requested type we do not issue, an actor, and a token over 16 KB', async () => {
    const p = someone();
    const token = await craftIdToken(external, p);
    const refresh = await expectRefused(token, p, { subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' });
    expect(refresh.body.error_description).toBe('body.subject_token_type: this token type is not supported.');
    await expectRefused(token, p, { subject_token_type: 'urn:ietf:params:oauth:token-type:saml2' });
    const requested = await expectRefused(token, p, { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' });
    expect(requested.body.error_description).toBe(`body.requested_token_type: only ${ACCESS_TOKEN_TYPE} is issued.`);
    await expectRefused(token, p, { actor_token: token, actor_token_type: ID_TOKEN_TYPE });
    const huge = await expectRefused(`${token}${'A'.repeat(16 * 1024)}`, p);
    expect(huge.body.error_description).toMatch(/^body\.subject_token: /);
    const missing = await exchange({ subject_token_type: 'acme' });
    expect(missing.status).toBe(400);
    expect(missing.body.error_description).toBe('body.subject_token: is required');
  });

  it('a provider that is down: a clear 400 within 3 s, never a hang or a 5xx', async () => {
    const down = await startExternalProvider();
    const provider = await registerProvider(svc, down, { provider_name: 'down' });
    const p = someone();
    const token = await down.mintIdToken({ ...p });
    await down.stop();
    for (let i = 0; i < 3; i++) {
      const res = await expectRefused(token, p, { subject_token_type: 'down' }, provider);
      expect(res.body.error_description).toBe(
        'body.subject_token: the identity provider could not be read (unreachable); try again later.',
      );
      expect(res.ms).toBeLessThan(3000);
    }
  });

  it('a provider that hangs: the same 400, after the fetch timeout, then at once while backing off', async () => {
    const hanging = await startExternalProvider();
    const provider = await registerProvider(svc, hanging, { provider_name: 'hangs' });
    const p = someone();
    const token = await hanging.mintIdToken({ ...p });
    hanging.hang();
    try {
      const first = await expectRefused(token, p, { subject_token_type: 'hangs' }, provider);
      expect(first.body.error_description).toBe('body.subject_token: the identity provider could not be read (timeout); try again later.');
      expect(first.ms).toBeLessThan(3000);
      const second = await expectRefused(token, p, { subject_token_type: 'hangs' }, provider);
      expect(second.ms).toBeLessThan(1000);
    } finally {
      await hanging.stop();
    }
  });
});

describe('the tenant of the exchange (docs/contract.md §7.7)', () => {
  it("a provider of the tenant is found; with the id_token URN, two enabled providers matching the token's issuer and audience are refused", async () => {
    const twin = await registerProvider(svc, external, { provider_name: 'acme-twin' });
    const p = someone();
    const token = await craftIdToken(external, p);
    const res = await expectRefused(token, p, { subject_token_type: ID_TOKEN_TYPE }, twin);
    expect(res.body.error_description).toMatch(/^body\.subject_token_type: several identity providers/);
    expect(await linkedUserId(svc, idp.id, p.sub)).toBeUndefined();
  });
});
