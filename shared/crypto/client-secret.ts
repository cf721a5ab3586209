import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** docs/design.md §4: client secrets are 256-bit random values, base64url. */
export const generateClientSecret = (): string => randomBytes(32).toString('base64url');

/** Secrets are verified against a SHA-256 hash (a 256-bit random secret needs no slow hash). */
export const hashClientSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('base64url');

/** Constant-time comparison of a presented secret against the stored hash. */
export function verifyClientSecret(presented: string, storedHash: string | undefined): boolean {
  const expected = Buffer.from(storedHash ?? '', 'base64url');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  // Compare even when nothing is stored, so an unknown client costs the same as a wrong secret.
  return (
    timingSafeEqual(actual, expected.length === actual.length ? expected : Buffer.alloc(actual.length)) && expected.length === actual.length
  );
}
