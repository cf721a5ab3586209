import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { DPOP_ALGS } from '#shared/oauth/dpop/dpop-algs.ts';
import { accessTokenHash, checkDpopProof, InvalidDpopProof } from '#shared/oauth/dpop/dpop-proof.ts';

/**
 * The proof checks alone (RFC 9449 §4.3; docs/client-authentication.md "Sender-constrained tokens
 * (DPoP)"): every allowed algorithm, the URL comparison, the claims' types. The end-to-end attacks
 * are in dpop.test.ts.
 */
const NOW = new Date('2026-03-01T12:00:00Z');
const nowSeconds = Math.floor(NOW.getTime() / 1000);
const URL_ = 'https://id.example.com/token';

async function signed(alg: string, claims: Record<string, unknown> = {}, options: Parameters<typeof generateKeyPair>[1] = {}) {
  const pair = await generateKeyPair(alg, { extractable: true, ...options });
  const jwk = await exportJWK(pair.publicKey);
  const proof = await new SignJWT({ jti: randomUUID(), iat: nowSeconds, htm: 'POST', htu: URL_, ...claims })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk })
    .sign(pair.privateKey);
  return { proof, jkt: await calculateJwkThumbprint(jwk) };
}

const reason = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidDpopProof);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('checkDpopProof', () => {
  for (const alg of DPOP_ALGS) {
    it(`${alg}: accepted, jkt is the RFC 7638 thumbprint of its jwk`, async () => {
      const { proof, jkt } = await signed(alg);
      const checked = await checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW });
      expect(checked).toMatchObject({ jkt, iat: nowSeconds, nonce: undefined });
    });
  }

  it('htu is compared after normalisation, without query and fragment; another path, port or scheme is refused', async () => {
    for (const htu of ['HTTPS://ID.EXAMPLE.COM/token', 'https://id.example.com:443/token', 'https://id.example.com/a/../token?x=1#y']) {
      const { proof } = await signed('ES256', { htu });
      await expect(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW }), htu).resolves.toBeDefined();
    }
    for (const htu of [
      'https://id.example.com/token/',
      'https://id.example.com:8443/token',
      'http://id.example.com/token',
      'https://u:p@id.example.com/token',
      'token',
    ]) {
      const { proof } = await signed('ES256', { htu });
      expect(await reason(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW })), htu).toContain('htu');
    }
  });

  it('iat at the edges of the 60 s window', async () => {
    for (const iat of [nowSeconds - 60, nowSeconds + 60]) {
      const { proof } = await signed('ES256', { iat });
      await expect(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW })).resolves.toBeDefined();
    }
    for (const iat of [nowSeconds - 61, nowSeconds + 61, '1700000000']) {
      const { proof } = await signed('ES256', { iat });
      expect(await reason(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW }))).toContain('iat');
    }
  });

  it('jti missing, empty or over 256 characters; a nonce that is not a short string: refused', async () => {
    for (const jti of [undefined, '', 'x'.repeat(257), 42]) {
      const { proof } = await signed('ES256', { jti });
      expect(await reason(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW })), String(jti)).toContain('jti');
    }
    const { proof } = await signed('ES256', { nonce: 7 });
    expect(await reason(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW }))).toContain('nonce');
  });

  it('ath must be the SHA-256 of the token presented with it', async () => {
    const token = 'eyJ.token.value';
    const good = await signed('ES256', { ath: accessTokenHash(token) });
    await expect(checkDpopProof(good.proof, { htm: 'POST', htu: URL_, now: NOW, accessToken: token })).resolves.toBeDefined();
    expect(await reason(checkDpopProof(good.proof, { htm: 'POST', htu: URL_, now: NOW, accessToken: `${token}x` }))).toContain('ath');
  });

  it('ES512 (not allowed) and a header without jwk are refused before any signature check', async () => {
    const { proof } = await signed('ES512');
    expect(await reason(checkDpopProof(proof, { htm: 'POST', htu: URL_, now: NOW }))).toContain('alg must be one of');
    const pair = await generateKeyPair('ES256');
    const noJwk = await new SignJWT({ jti: 'a', iat: nowSeconds, htm: 'POST', htu: URL_ })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt' })
      .sign(pair.privateKey);
    expect(await reason(checkDpopProof(noJwk, { htm: 'POST', htu: URL_, now: NOW }))).toContain('jwk');
  });
});
