import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';

/** argon2id cost parameters: memory in KiB, passes (time cost), lanes (parallelism). */
export interface PasswordHashParams {
  memoryKiB: number;
  passes: number;
  parallelism: number;
}

/**
 * OWASP Password Storage Cheat Sheet, "Argon2id": the first of its equivalent configurations,
 * m=19456 (19 MiB), t=2, p=1 (RFC 9106 §4's second recommended option, 64 MiB, costs more memory
 * than a small Lambda should spend per login). Raising any of them makes `needsRehash` true for
 * hashes made with the old values, and the grants rehash on the next successful login.
 */
export const PASSWORD_HASH_PARAMS: Readonly<PasswordHashParams> = Object.freeze({ memoryKiB: 19_456, passes: 2, parallelism: 1 });

/** RFC 9106 §3.1: a 16-byte salt is recommended for password hashing; a 32-byte tag. */
const SALT_BYTES = 16;
const TAG_BYTES = 32;
const VERSION = 19; // Argon2 version 0x13, the one RFC 9106 specifies.

/**
 * Hashes a password with argon2id and returns the PHC string
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (standard base64 without padding, as the PHC
 * string format and the reference implementation write it). Runs on libuv's thread pool.
 */
export async function hashPassword(password: string, params: PasswordHashParams = PASSWORD_HASH_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const tag = await derive(password, salt, params, TAG_BYTES);
  return `$argon2id$v=${VERSION}$m=${params.memoryKiB},t=${params.passes},p=${params.parallelism}$${b64(salt)}$${b64(tag)}`;
}

/**
 * Whether `password` matches the stored PHC string, compared in constant time. With no stored hash
 * (unknown user, user without a password) or an unreadable one, it verifies against a fixed dummy
 * hash with the current parameters and answers false: the caller's answer then takes as long as
 * for a wrong password (docs/contract.md §7.3).
 */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parsePasswordHash(stored);
  const target = parsed ?? DUMMY;
  const tag = await derive(password, target.salt, target.params, target.hash.length);
  return timingSafeEqual(tag, target.hash) && parsed !== undefined;
}

/**
 * Whether a stored hash was made with weaker parameters than the current ones (or is not a
 * readable argon2id v19 string): the grant then stores a fresh hash after a successful login.
 * A hash with stronger parameters is kept (a rollback must not weaken stored hashes).
 */
export function needsRehash(stored: string, params: PasswordHashParams = PASSWORD_HASH_PARAMS): boolean {
  const parsed = parsePasswordHash(stored);
  if (!parsed) return true;
  const p = parsed.params;
  return p.memoryKiB < params.memoryKiB || p.passes < params.passes || p.parallelism < params.parallelism || parsed.hash.length < TAG_BYTES;
}

interface ParsedHash {
  params: PasswordHashParams;
  salt: Buffer;
  hash: Buffer;
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,4}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{6,})$/;

/** Reads an argon2id v19 PHC string; undefined for anything else. */
export function parsePasswordHash(stored: string): ParsedHash | undefined {
  const m = PHC.exec(stored);
  if (!m) return undefined;
  const params = { memoryKiB: Number(m[1]), passes: Number(m[2]), parallelism: Number(m[3]) };
  // node:crypto's bounds: passes and lanes >= 1, memory >= 8 KiB per lane; the salt >= 8 bytes.
  if (params.passes < 1 || params.parallelism < 1 || params.memoryKiB < 8 * params.parallelism) return undefined;
  const salt = Buffer.from(m[4] as string, 'base64');
  const hash = Buffer.from(m[5] as string, 'base64');
  if (salt.length < 8 || hash.length < 4) return undefined;
  return { params, salt, hash };
}

/**
 * A readable PHC string without its digest, `$argon2id$v=19$m=…,t=…,p=…$<salt>`: all a hash of a
 * password needs to start. The user's login markers keep it (docs/users.md "Login markers"), so a
 * login's hash starts before the user is read. Undefined for no hash or an unreadable one.
 */
export function passwordHashPrefix(stored: string | undefined): string | undefined {
  return stored !== undefined && parsePasswordHash(stored) ? stored.slice(0, stored.lastIndexOf('$')) : undefined;
}

/** A password check begun before the stored hash is read (beginPasswordCheck). */
export interface BegunPasswordCheck {
  /** Whether the password matches the stored hash, once read; compared in constant time. */
  verify(stored: string | undefined): Promise<boolean>;
  /** Settles when the hash begun is done (never rejects): a caller that needs no answer waits for it. */
  readonly settled: Promise<unknown>;
}

/**
 * Starts hashing `password` with the salt and parameters of `prefix` (passwordHashPrefix of the
 * hash it will be checked against: a login marker's copy) before that hash is read, so the hash
 * runs alongside the read. `verify` then compares digests when the stored hash still has that
 * prefix; when it has another (the password changed since the copy was written, or there was no
 * copy) it hashes again with the stored one, so a stale copy costs time, never a wrong answer.
 * No prefix, or an unreadable one, hashes against the dummy: an unknown login does the same work.
 */
export function beginPasswordCheck(password: string, prefix: string | undefined): BegunPasswordCheck {
  // The prefix is read as a hash with a placeholder digest: its parameters and salt are checked the same way.
  const head = (prefix !== undefined && parsePasswordHash(`${prefix}$AAAAAAAA`)) || DUMMY;
  const used = head === DUMMY ? DUMMY_PREFIX : prefix;
  // Resolves to undefined on failure (parameters node:crypto refuses): verify then hashes again.
  const begun = derive(password, head.salt, head.params, TAG_BYTES).catch(() => undefined);
  return {
    settled: begun,
    async verify(stored) {
      const parsed = stored === undefined ? undefined : parsePasswordHash(stored);
      // Nothing to compare with (unknown user, no password, unreadable hash): the hash begun was this answer's work.
      if (!parsed) {
        await begun;
        return false;
      }
      const tag = passwordHashPrefix(stored) === used && parsed.hash.length === TAG_BYTES ? await begun : undefined;
      if (tag) return timingSafeEqual(tag, parsed.hash);
      const [, ok] = await Promise.all([begun, verifyPassword(password, stored)]);
      return ok;
    },
  };
}

function derive(password: string, salt: Buffer, params: PasswordHashParams, tagLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      'argon2id',
      {
        // NIST SP 800-63B §5.1.1.2: normalise Unicode (NFKC) before hashing, so the same password
        // typed on two keyboards matches.
        message: password.normalize('NFKC'),
        nonce: salt,
        memory: params.memoryKiB,
        passes: params.passes,
        parallelism: params.parallelism,
        tagLength,
      },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

const b64 = (buf: Buffer): string => buf.toString('base64').replace(/=+$/, '');

/**
 * A fixed hash of a random password nobody kept, made with PASSWORD_HASH_PARAMS (a unit test
 * checks that they match: regenerate it when the parameters rise). A constant rather than a hash
 * made at start, so neither a cold start nor the first unknown user pays a second hash.
 */
export const DUMMY_PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$/s/Jb1Ec+FEgeztd+rrMkA$9wixV0lrftRVgcb+LFLSa19p+nmYnI6Bag3FUvw4D+E';
const DUMMY = parsePasswordHash(DUMMY_PASSWORD_HASH) as ParsedHash;
const DUMMY_PREFIX = passwordHashPrefix(DUMMY_PASSWORD_HASH) as string;
