import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, isTotpCodeShape, matchTotpStep, otpauthUri, totp, totpStep } from '#shared/crypto/totp.ts';

/** RFC 6238 Appendix B: the SHA-1 seed is the ASCII string "12345678901234567890". */
const SEED = Buffer.from('12345678901234567890', 'ascii');
const APPENDIX_B: readonly [number, string, string][] = [
  // [unix time, T as hex, 8-digit TOTP (SHA-1)]
  [59, '0000000000000001', '94287082'],
  [1111111109, '00000000023523EC', '07081804'],
  [1111111111, '00000000023523ED', '14050471'],
  [1234567890, '000000000273EF07', '89005924'],
  [2000000000, '0000000003F940AA', '69279037'],
  [20000000000, '0000000027BC86AA', '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('reproduces the SHA-1 test vectors of RFC 6238 Appendix B (8 digits, and their 6-digit tails)', () => {
    for (const [time, stepHex, code] of APPENDIX_B) {
      const at = new Date(time * 1000);
      expect(totpStep(at)).toBe(Number.parseInt(stepHex, 16));
      expect(totp(SEED, at, 8)).toBe(code);
      expect(totp(SEED, at)).toBe(code.slice(2));
    }
  });

  it('reproduces RFC 4226 Appendix D HOTP values', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    for (const [counter, code] of expected.entries()) expect(hotp(SEED, counter)).toBe(code);
  });

  it('accepts the current step and one either side, and nothing further', () => {
    const at = new Date(1111111111 * 1000);
    const step = totpStep(at);
    for (const drift of [-1, 0, 1]) expect(matchTotpStep(SEED, hotp(SEED, step + drift), at)).toBe(step + drift);
    for (const drift of [-3, -2, 2, 3]) expect(matchTotpStep(SEED, hotp(SEED, step + drift), at)).toBeUndefined();
  });

  it('refuses codes of any other shape', () => {
    const at = new Date(1111111111 * 1000);
    const good = totp(SEED, at);
    for (const bad of ['', good.slice(1), `${good}0`, ` ${good.slice(1)}`, '１２３４５６', 'abcdef', '------']) {
      expect(matchTotpStep(SEED, bad, at)).toBeUndefined();
    }
    expect(isTotpCodeShape('012345')).toBe(true);
    expect(isTotpCodeShape('12345a')).toBe(false);
  });

  it('base32 follows RFC 4648 §10 (without padding) and reads padding and lower case back', () => {
    const vectors = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [plain, encoded] of vectors) {
      expect(base32Encode(Buffer.from(plain as string))).toBe(encoded);
      expect(base32Decode(encoded as string)?.toString()).toBe(plain);
    }
    expect(base32Decode('mzxw6ytboi======')?.toString()).toBe('foobar');
    expect(base32Decode('MZXW1')).toBeUndefined();
    expect(base32Encode(SEED)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });

  it('writes the otpauth:// Key URI apps read, with the label and issuer encoded', () => {
    const uri = otpauthUri(SEED, { issuer: 'Acme ID', account: 'alice@example.com' });
    expect(uri).toBe(
      'otpauth://totp/Acme%20ID:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme+ID&algorithm=SHA1&digits=6&period=30',
    );
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('secret')).toBe(base32Encode(SEED));
  });
});
