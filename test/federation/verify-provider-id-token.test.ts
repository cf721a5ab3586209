import { createPublicKey } from 'node:crypto';
import { base64url, decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderTokenError } from '#shared/federation/federation-errors.ts';
import type { ProviderKeys } from '#shared/federation/provider-keys.ts';
import { CLOCK_TOLERANCE_S, verifyProviderIdToken } from '#shared/federation/verify-provider-id-token.ts';
import { type ExternalProvider, providerKeyCache, startExternalProvider } from '../support/oauth/external-provider.ts';

/**
 * An ID token of a real external OpenID provider (oidc-provider on a loopback port), verified
 * against that provider's keys read through discovery (docs/federation.md "Reading a provider").
 * Every refusal is checked for its reason and for the JWKS reads it caused on the provider's side.
 */
let provider: ExternalProvider;
let other: ExternalProvider;
let keys: ProviderKeys;

const claims = {
  sub: 'user-42',
  email: 'ada@example.com',
  email_verified: true,
  name: 'Ada Lovelace',
  given_name: 'Ada',
  family_name: 'Lovelace',
  picture: 'https://img.example.com/ada.png',
};

const jwksReads = (p: ExternalProvider) => p.requests.filter((path) => path === '/jwks').length;

async function refusal(token: string, check: Parameters<typeof verifyProviderIdToken>[2] = { audience: provider.clientId }) {
  const error = await verifyProviderIdToken(token, keys, check).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderTokenError);
  return error as ProviderTokenError;
}

/** A token signed with the provider's own current key, claims chosen by the test. */
function signedByProvider(payload: Record<string, unknown>, header: Record<string, unknown> = {}) {
  return new SignJWT(payload).setProtectedHeader({ alg: provider.alg, kid: provider.kid, ...header }).sign(provider.privateKey);
}

beforeAll(async () => {
  provider = await startExternalProvider({ alg: 'ES256' });
  other = await startExternalProvider({ alg: 'ES256' });
  keys = await providerKeyCache().keysOf({ issuer: provider.issuer });
});
afterAll(async () => {
  await provider.stop();
  await other.stop();
});

describe('a provider ID token', () => {
  it('verifies and yields the identity claims; the keys are read once, through discovery', async () => {
    const token = await provider.mintIdToken(claims);
    const identity = await verifyProviderIdToken(token, keys, { audience: provider.clientId });
    const minted = decodeJwt(token);
    expect(identity).toEqual({ ...claims, iss: provider.issuer, aud: provider.clientId, exp: minted.exp, iat: minted.iat });
    expect(keys.jwksUri).toBe(provider.jwksUri);
    expect(keys.metadata?.id_token_signing_alg_values_supported).toEqual(['ES256']);
    expect(provider.requests).toEqual(['/.well-known/openid-configuration', '/jwks']);

    await verifyProviderIdToken(await provider.mintIdToken({ sub: 'user-43' }), keys, { audience: provider.clientId });
    expect(jwksReads(provider)).toBe(1);
  });

  it('is refused once expired (past the clock tolerance), accepted within it', async () => {
    const token = await provider.mintIdToken(claims);
    const exp = decodeJwt(token).exp!;
    const within = new Date((exp + CLOCK_TOLERANCE_S - 1) * 1000);
    await expect(verifyProviderIdToken(token, keys, { audience: provider.clientId, now: within })).resolves.toMatchObject({
      sub: 'user-42',
    });
    const error = await refusal(token, { audience: provider.clientId, now: new Date((exp + CLOCK_TOLERANCE_S) * 1000) });
    expect(error.reason).toBe('expired');
    expect(error.message).toBe('The ID token has expired.');
  });

  it('is refused before its nbf, and when issued in the future (iat)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const early = await signedByProvider({
      ...claims,
      iss: provider.issuer,
      aud: provider.clientId,
      iat: now,
      exp: now + 600,
      nbf: now + 300,
    });
    expect((await refusal(early)).reason).toBe('not_yet_valid');

    const minted = await provider.mintIdToken(claims);
    const iat = decodeJwt(minted).iat!;
    const before = new Date((iat - CLOCK_TOLERANCE_S - 1) * 1000);
    const error = await refusal(minted, { audience: provider.clientId, now: before });
    expect(error).toMatchObject({ reason: 'not_yet_valid', message: 'The ID token was issued in the future (iat).' });
  });

  it('is refused for another audience, and when azp names another party', async () => {
    const token = await provider.mintIdToken(claims);
    expect(await refusal(token, { audience: 'some-other-client' })).toMatchObject({
      reason: 'audience',
      message: 'The ID token is not for this client (aud).',
    });

    const now = Math.floor(Date.now() / 1000);
    const azp = await signedByProvider({
      ...claims,
      iss: provider.issuer,
      aud: [provider.clientId, 'x'],
      azp: 'x',
      iat: now,
      exp: now + 600,
    });
    expect((await refusal(azp)).reason).toBe('audience');
  });

  it('carries the nonce of the login when one is expected (OIDC Core §3.1.3.7)', async () => {
    const token = await provider.mintIdToken(claims, { nonce: 'n-0S6_WzA2Mj' });
    await expect(verifyProviderIdToken(token, keys, { audience: provider.clientId, nonce: 'n-0S6_WzA2Mj' })).resolves.toMatchObject({
      sub: 'user-42',
    });
    expect(await refusal(token, { audience: provider.clientId, nonce: 'another' })).toMatchObject({
      reason: 'claims',
      message: "The ID token's nonce is not the one of this login.",
    });
    expect((await refusal(await provider.mintIdToken(claims), { audience: provider.clientId, nonce: 'n-0S6_WzA2Mj' })).reason).toBe(
      'claims',
    );
  });

  it("is refused with another issuer, even signed with this provider's key", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signedByProvider({ ...claims, iss: other.issuer, aud: provider.clientId, iat: now, exp: now + 600 });
    expect(await refusal(token)).toMatchObject({ reason: 'issuer', message: 'The ID token was not issued by this provider (iss).' });
  });

  it("is refused when another provider signed it: its kid is unknown, or this provider's kid over the other's signature", async () => {
    const before = jwksReads(provider);
    const foreign = await other.mintIdToken(claims);
    expect((await refusal(foreign)).reason).toBe('unknown_key');
    // The keys were read less than the 30 s cooldown ago: an unknown kid reads nothing.
    expect(jwksReads(provider)).toBe(before);
    expect(jwksReads(other)).toBe(0);

    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ ...claims, iss: provider.issuer, aud: provider.clientId, iat: now, exp: now + 600 })
      .setProtectedHeader({ alg: 'ES256', kid: provider.kid })
      .sign(other.privateKey);
    expect(await refusal(forged)).toMatchObject({ reason: 'bad_signature', message: "The ID token's signature is invalid." });
  });

  it('is refused unsigned (alg none) and as HS256 keyed with the public key, before any key is read', async () => {
    const before = jwksReads(provider);
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims, iss: provider.issuer, aud: provider.clientId, iat: now, exp: now + 600 };
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', kid: 'never-seen' }))}.${base64url.encode(JSON.stringify(payload))}.`;
    expect(await refusal(none)).toMatchObject({ reason: 'alg_not_allowed', message: "The ID token's algorithm none is not allowed." });

    for (const secret of [
      createPublicKey(provider.privateKey).export({ format: 'pem', type: 'spki' }),
      JSON.stringify(provider.publicKey.export({ format: 'jwk' })),
    ]) {
      const hs = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'HS256', kid: 'never-seen' })
        .sign(new TextEncoder().encode(String(secret)));
      expect((await refusal(hs)).reason).toBe('alg_not_allowed');
    }
    expect(jwksReads(provider)).toBe(before);
  });

  it("is refused with an algorithm the provider's discovery document does not list", async () => {
    const now = Math.floor(Date.now() / 1000);
    const rs = await startExternalProvider({ alg: 'RS256' });
    try {
      const token = await new SignJWT({ ...claims, iss: provider.issuer, aud: provider.clientId, iat: now, exp: now + 600 })
        .setProtectedHeader({ alg: 'RS256', kid: provider.kid })
        .sign(rs.privateKey);
      expect(await refusal(token)).toMatchObject({ reason: 'alg_not_allowed', message: "The ID token's algorithm RS256 is not allowed." });
    } finally {
      await rs.stop();
    }
  });

  it('is refused as an access token (typ at+jwt), malformed, oversized, or without a valid sub', async () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims, iss: provider.issuer, aud: provider.clientId, iat: now, exp: now + 600 };
    expect((await refusal(await signedByProvider(payload, { typ: 'at+jwt' }))).reason).toBe('malformed');
    expect((await refusal('not.a.jwt')).reason).toBe('malformed');
    expect(await refusal('a'.repeat(16 * 1024 + 1))).toMatchObject({
      reason: 'malformed',
      message: 'The ID token exceeds 16384 characters.',
    });
    expect((await refusal(await signedByProvider({ ...payload, sub: 'x'.repeat(256) }))).reason).toBe('claims');
    expect(await refusal(await signedByProvider({ ...payload, email_verified: 'yes' }))).toMatchObject({
      reason: 'claims',
      message: "The ID token's email_verified claim is invalid.",
    });
  });

  it.each(['RS256', 'PS256', 'EdDSA'] as const)('verifies a %s-signing provider', async (alg) => {
    const p = await startExternalProvider({ alg });
    try {
      const pKeys = await providerKeyCache().keysOf({ issuer: p.issuer });
      const identity = await verifyProviderIdToken(await p.mintIdToken({ sub: 'u' }), pKeys, { audience: p.clientId });
      expect(identity).toMatchObject({ sub: 'u', iss: p.issuer, aud: p.clientId });
    } finally {
      await p.stop();
    }
  });
});
