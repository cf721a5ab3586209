/**
 * shared/keys/jwk.ts computes a key's kid, its RFC 7638 SHA-256 thumbprint, with node:crypto (the
 * token function's cold start carries no jose for it: docs/benchmarks.md "Token function bundle,
 * token exchange"). The kid is in every token and JWKS, so it must be exactly jose's thumbprint.
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import { jwkOfKey, kidOf } from '#shared/keys/jwk.ts';

describe('kidOf', () => {
  it("is jose's RFC 7638 SHA-256 thumbprint for EC P-256 and RSA keys, private members ignored", async () => {
    const pairs = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('rsa', { modulusLength: 2048 })];
    for (const { publicKey, privateKey } of pairs) {
      const publicJwk = jwkOfKey(publicKey);
      const privateJwk = privateKey.export({ format: 'jwk' });
      const kid = await kidOf(publicJwk);
      expect(kid).toMatch(/^[\w-]{43}$/);
      expect(kid).toBe(await calculateJwkThumbprint(publicJwk, 'sha256'));
      expect(await kidOf(privateJwk)).toBe(kid);
    }
  });

  it('refuses a key with a required member missing rather than hashing a partial one', async () => {
    await expect(kidOf({ kty: 'EC', crv: 'P-256', x: 'AAAA' })).rejects.toThrow(/RFC 7638/);
    await expect(kidOf({ kty: 'oct', k: 'AAAA' })).rejects.toThrow(/RFC 7638/);
  });
});
