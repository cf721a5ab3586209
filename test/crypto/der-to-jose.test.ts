import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToJose } from '#shared/crypto/der-to-jose.ts';
import { signDigestP256 } from '../support/keys/p256.ts';

describe('derToJose (RFC 7518 §3.4: ES256 signature = r || s, 64 bytes)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it('turns 300 DER signatures (short and sign-padded integers included) into verifying r || s', () => {
    for (let i = 0; i < 300; i++) {
      const data = Buffer.from(`message ${i}`);
      const der = sign('sha256', data, { key: privateKey, dsaEncoding: 'der' });
      const jose = derToJose(der, 32);
      expect(jose).toHaveLength(64);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
    }
  });

  it('the test KMS signer (digest input) produces DER that node verifies, before and after conversion', () => {
    const data = Buffer.from('header.payload');
    const der = signDigestP256(privateKey, createHash('sha256').update(data).digest());
    expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'der' }, der)).toBe(true);
    expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, derToJose(der))).toBe(true);
  });

  it('left-pads a short integer', () => {
    const der = Buffer.from([0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07]);
    const out = derToJose(der, 32);
    expect(out[31]).toBe(5);
    expect(out[63]).toBe(7);
    expect(out.subarray(0, 31).every((b) => b === 0)).toBe(true);
  });

  it.each([
    ['not a SEQUENCE', [0x31, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07]],
    ['wrong SEQUENCE length', [0x30, 0x07, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07]],
    ['trailing bytes', [0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07, 0x00]],
    ['not an INTEGER', [0x30, 0x06, 0x04, 0x01, 0x05, 0x02, 0x01, 0x07]],
    ['truncated', [0x30, 0x06, 0x02, 0x01]],
    ['integer wider than the curve', [0x30, 0x26, 0x02, 0x21, 0x01, ...new Array(32).fill(1), 0x02, 0x01, 0x07]],
  ])('refuses %s', (_name, bytes) => {
    expect(() => derToJose(Buffer.from(bytes), 32)).toThrow();
  });
});
