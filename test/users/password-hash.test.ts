import { argon2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  beginPasswordCheck,
  DUMMY_PASSWORD_HASH,
  hashPassword,
  needsRehash,
  PASSWORD_HASH_PARAMS,
  parsePasswordHash,
  passwordHashPrefix,
  verifyPassword,
} from '#shared/crypto/password-hash.ts';

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

describe('a password check begun from the prefix of the hash (login markers)', () => {
  it('passwordHashPrefix: the PHC string without its digest; nothing for no hash or an unreadable one', () => {
    expect(passwordHashPrefix(REFERENCE)).toBe('$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA');
    expect(passwordHashPrefix(undefined)).toBeUndefined();
    expect(passwordHashPrefix('$2b$10$abcdefghijklmnopqrstuu')).toBeUndefined();
    expect(passwordHashPrefix('$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA')).toBeUndefined();
  });

  it('with the prefix of the stored hash: the right password is true, any other false', async () => {
    const prefix = passwordHashPrefix(REFERENCE);
    expect(await beginPasswordCheck('correct horse battery', prefix).verify(REFERENCE)).toBe(true);
    expect(await beginPasswordCheck('correct horse batterY', prefix).verify(REFERENCE)).toBe(false);
  });

  it("a prefix that is not the stored hash's (stale, absent, forged, unreadable): answered from the stored hash", async () => {
    const old = await hashPassword('the old password 1');
    const current = await hashPassword('the new password 2');
    for (const prefix of [passwordHashPrefix(old), undefined, '$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA', 'garbage']) {
      // The old password hashed under the old salt matches the old digest, never the current hash.
      expect(await beginPasswordCheck('the old password 1', prefix).verify(current), String(prefix)).toBe(false);
      expect(await beginPasswordCheck('the new password 2', prefix).verify(current), String(prefix)).toBe(true);
    }
    // A stored hash with another digest length than ours (16 bytes) cannot use the begun hash either.
    const salt = randomBytes(16);
    const tag = argon2Sync('argon2id', { message: 'short tag 3', nonce: salt, memory: 19_456, passes: 2, parallelism: 1, tagLength: 16 });
    const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
    const short = `$argon2id$v=19$m=19456,t=2,p=1$${b64(salt)}$${b64(tag)}`;
    expect(await beginPasswordCheck('short tag 3', passwordHashPrefix(short)).verify(short)).toBe(true);
    expect(await beginPasswordCheck('short tag 4', passwordHashPrefix(short)).verify(short)).toBe(false);
  });

  it('nothing to check against (unknown user, no password, unreadable hash): false, once the begun hash is done', async () => {
    for (const stored of [undefined, '$2b$10$abcdefghijklmnopqrstuu']) {
      const begun = beginPasswordCheck('anything at all', passwordHashPrefix(REFERENCE));
      let settled = false;
      void begun.settled.then(() => {
        settled = true;
      });
      expect(await begun.verify(stored)).toBe(false);
      expect(settled).toBe(true);
    }
    expect(await beginPasswordCheck('anything at all', undefined).verify(undefined)).toBe(false);
  });
});
