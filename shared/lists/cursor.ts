import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../errors.ts';

/** Where the next page starts: its position, and on the fast path the store key to resume after. */
export interface CursorState {
  readonly position: number;
  readonly startKey?: Readonly<Record<string, string | number>>;
}

/**
 * What a cursor is only valid for: the list (collection name + the source's identity, which
 * includes the tenant partition) and the query shape (filter, sort, path). None of it is in the
 * token; it is in the MAC, so a cursor from another list, tenant or query simply fails to verify.
 */
export interface CursorBinding {
  readonly collection: string;
  readonly query: string;
}

const VERSION = 'list-cursor/v1';
const MAC_BYTES = 32;

/**
 * Cursors are `base64url(JSON state) "." base64url(HMAC-SHA256)`: opaque to callers and
 * integrity-protected, not confidential (the state holds only ids of records the caller has
 * already seen). The key is `serviceSecret('cursor')`.
 */
export function sealCursor(key: Buffer, binding: CursorBinding, state: CursorState): string {
  const body = Buffer.from(JSON.stringify(state.startKey ? { p: state.position, k: state.startKey } : { p: state.position })).toString('base64url');
  return `${body}.${mac(key, binding, body).toString('base64url')}`;
}

/** Verifies and decodes a cursor; anything wrong is a 400 naming `query.cursor`. */
export function openCursor(key: Buffer, binding: CursorBinding, token: string): CursorState {
  const invalid = () => badRequest('query.cursor: is invalid, or belongs to another list or query; start again without cursor');
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) throw invalid();
  const given = Buffer.from(sig, 'base64url');
  // Canonical encoding only (Buffer decoding ignores stray bits), and timingSafeEqual needs equal
  // lengths; the length itself is public (always 32).
  if (given.length !== MAC_BYTES || given.toString('base64url') !== sig || !timingSafeEqual(given, mac(key, binding, body))) throw invalid();
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
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

function mac(key: Buffer, binding: CursorBinding, body: string): Buffer {
  if (key.length < 16) throw new Error('cursor key too short: pass serviceSecret("cursor")');
  // Length-prefixed fields: no two different bindings can produce the same MAC input.
  const input = [VERSION, binding.collection, binding.query, body].map((s) => `${s.length}:${s}`).join('|');
  return createHmac('sha256', key).update(input).digest();
}

function isKey(k: unknown): k is Record<string, string | number> {
  if (typeof k !== 'object' || k === null || Array.isArray(k)) return false;
  return Object.values(k).every((x) => typeof x === 'string' || typeof x === 'number');
}
