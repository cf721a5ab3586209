import { describe, expect, it } from 'vitest';
import {
  DUMMY_PASSWORD_HASH,
  hashPassword,
  needsRehash,
  PASSWORD_HASH_PARAMS,
  parsePasswordHash,
  verifyPassword,
} from '../../shared/users/password-hash.ts';

/** Made by the reference implementation (Debian's `argon2` CLI, phc-winner-argon2):
 * `echo -n "correct horse battery" | argon2 saltsaltsaltsalt -id -t 2 -k 19456 -p 1 -l 32 -e` */
const REFERENCE = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$iPOQ5f2O21FsjnBvo1AiFcDuSXciCnKUrXFO+yfgNoM';

describe('password hash (argon2id, PHC string)', () => {
  it('writes a PHC string with the OWASP parameters, a 16-byte salt and a 32-byte hash', async () => {
    const phc = await hashPassword('correct horse battery');
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(PASSWORD_HASH_PARAMS).toEqual({ memoryKiB: 19_456, passes: 2, parallelism: 1 });
  });

  it('agrees with the reference implementation in both directions', async () => {
    expect(await verifyPassword('correct horse battery', REFERENCE)).toBe(true);
    expect(await verifyPassword('correct horse batterY', REFERENCE)).toBe(false);
  });

  it('verifies the right password and refuses a wrong one; two hashes of one password differ (random salt)', async () => {
    const a = await hashPassword('Tr0ub4dor&3-xyz');
    const b = await hashPassword('Tr0ub4dor&3-xyz');
    expect(a).not.toBe(b);
    expect(await verifyPassword('Tr0ub4dor&3-xyz', a)).toBe(true);
    expect(await verifyPassword('Tr0ub4dor&3-xy', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('normalises Unicode (NFKC) so one password typed two ways matches', async () => {
    const composed = 'caf\u00e9-latte-42';
    const decomposed = 'cafe\u0301-latte-42';
    expect(await verifyPassword(decomposed, await hashPassword(composed))).toBe(true);
  });

  it('answers false with no stored hash or an unreadable one (after hashing against the dummy)', async () => {
    expect(await verifyPassword('anything at all', undefined)).toBe(false);
    for (const bad of [
      '',
      'plain',
      '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$iPOQ5f2O21Fs',
      '$argon2id$v=16$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g',
    ]) {
      expect(await verifyPassword('anything at all', bad)).toBe(false);
    }
  });

  it('the dummy hash is made with the current parameters (regenerate it when they rise)', () => {
    expect(parsePasswordHash(DUMMY_PASSWORD_HASH)?.params).toEqual(PASSWORD_HASH_PARAMS);
    expect(needsRehash(DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it('needsRehash: true when the parameters rose or the string is not argon2id v19; false for equal or stronger', async () => {
    const current = await hashPassword('some password 1');
    expect(needsRehash(current)).toBe(false);
    const weaker = await hashPassword('some password 1', { memoryKiB: 8192, passes: 1, parallelism: 1 });
    expect(needsRehash(weaker)).toBe(true);
    expect(await verifyPassword('some password 1', weaker)).toBe(true);
    expect(needsRehash(current, { ...PASSWORD_HASH_PARAMS, passes: 3 })).toBe(true);
    expect(needsRehash(current, { ...PASSWORD_HASH_PARAMS, memoryKiB: 47_104 })).toBe(true);
    const stronger = await hashPassword('some password 1', { memoryKiB: 19_456, passes: 3, parallelism: 1 });
    expect(needsRehash(stronger)).toBe(false);
    expect(needsRehash('$2b$10$abcdefghijklmnopqrstuu')).toBe(true);
  });
});
