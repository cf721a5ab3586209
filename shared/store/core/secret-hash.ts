import { createHash } from 'node:crypto';

/**
 * How a one-time secret (a code, a refresh token, a session cookie, a ticket, a device code) is
 * named in the table: SHA-256, base64url. Only the hash is stored, so a table read never yields a
 * usable secret (docs/contract.md §5: codes and refresh tokens stored only as hashes); the secrets carry
 * ≥ 256 bits, so no salt or slow hash is needed.
 */
export const secretHash = (value: string): string => createHash('sha256').update(value).digest('base64url');
