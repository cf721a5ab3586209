import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { badRequest } from '../errors.ts';

/** Where the next page starts: its position, and on the fast path the store key to resume after. */
export interface CursorState {
  readonly position: number;
  readonly startKey?: Readonly<Record<string, string | number>>;
}

/**
 * What a cursor is only valid for: the list (collection name + the source's identity, which
 * includes the tenant partition) and the query shape (filter, sort, path). None of it is in the
 * token; it is the AES-GCM additional data, so a cursor from another list, tenant or query simply
 * fails to open.
 */
export interface CursorBinding {
  readonly collection: string;
  readonly query: string;
}

const VERSION = 'list-cursor/v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The AES-256 key of cursors, derived (RFC 5869 HKDF-SHA256) from `serviceSecret('cursor')`. */
const derivedKeys = new WeakMap<Buffer, Buffer>();
function aesKey(secret: Buffer): Buffer {
  if (secret.length < 16) throw new Error('cursor key too short: pass serviceSecret("cursor")');
  let key = derivedKeys.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), VERSION, 32));
    derivedKeys.set(secret, key);
  }
  return key;
}

/** Length-prefixed fields: no two different bindings give the same additional data. */
const aad = (binding: CursorBinding) => Buffer.from([VERSION, binding.collection, binding.query].map((s) => `${s.length}:${s}`).join('|'));

/**
 * Cursors are `base64url(IV ‖ AES-256-GCM(JSON state) ‖ tag)`: opaque (docs/contract.md §8 "Cursors": the
 * table keys inside do not show) and tamper-evident (any change fails the tag). The key is derived
 * from `serviceSecret('cursor')`; the IV is random per cursor (96 bits: NIST SP 800-38D §8.2.2
 * allows 2^32 cursors per key, far beyond what one stage makes before its key matters).
 */
export function sealCursor(secret: Buffer, binding: CursorBinding, state: CursorState): string {
  const plaintext = Buffer.from(JSON.stringify(state.startKey ? { p: state.position, k: state.startKey } : { p: state.position }));
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(secret), iv).setAAD(aad(binding));
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString('base64url');
}

/** Opens and decodes a cursor; anything wrong is a 400 naming `query.cursor`. */
export function openCursor(secret: Buffer, binding: CursorBinding, token: string): CursorState {
  const invalid = () => badRequest('query.cursor: is invalid, or belongs to another list or query; start again without cursor');
  const raw = Buffer.from(token, 'base64url');
  // Canonical encoding only (Buffer decoding skips stray characters and bits).
  if (raw.length < IV_BYTES + TAG_BYTES + 1 || raw.toString('base64url') !== token) throw invalid();
  let state: unknown;
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(secret), raw.subarray(0, IV_BYTES)).setAAD(aad(binding));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    state = JSON.parse(plaintext.toString('utf8'));
  } catch {
    throw invalid();
  }
  const { p, k } = (state ?? {}) as { p?: unknown; k?: unknown };
  if (!Number.isSafeInteger(p) || (p as number) < 0) throw invalid();
  if (k === undefined) return { position: p as number };
  if (!isKey(k)) throw invalid();
  return { position: p as number, startKey: k };
}

/** A short stable digest of the query shape, for `CursorBinding.query`. */
export function queryFingerprint(shape: unknown): string {
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url').slice(0, 22);
}

function isKey(k: unknown): k is Record<string, string | number> {
  if (typeof k !== 'object' || k === null || Array.isArray(k)) return false;
  return Object.values(k).every((x) => typeof x === 'string' || typeof x === 'number');
}
