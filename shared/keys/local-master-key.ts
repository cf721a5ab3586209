import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { logger } from '../logger.ts';

const KEY_BYTES = 32;

/**
 * The local stand-in for KMS: a 32-byte AES-256 master key in a file, created on first use with
 * mode 0600. Creation is atomic (write a temp file, then hard-link it into place, which fails if
 * the file exists), so two processes starting together end up with the same key.
 */
export function loadOrCreateMasterKey(file: string): Buffer {
  const existing = readKey(file);
  if (existing) return existing;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = readKey(file);
    if (!winner) throw new Error(`The master key file ${file} is unreadable`);
    return winner;
  } finally {
    unlinkSync(tmp);
  }
}

function readKey(file: string): Buffer | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  // Base64 text (what this module writes) or the 32 raw bytes.
  const key = raw.length === KEY_BYTES ? raw : Buffer.from(raw.toString('utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`The master key file ${file} does not hold a 32-byte key`);
  if ((statSync(file).mode & 0o077) !== 0) logger.warn('master key file is readable by other users', { file });
  return key;
}
