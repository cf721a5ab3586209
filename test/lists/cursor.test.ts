import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../shared/errors.ts';
import { openCursor, queryFingerprint, sealCursor } from '../../shared/lists/cursor.ts';

const key = randomBytes(32);
const binding = { collection: 'clients|GSI1|TENANT#t1#CLIENTS|', query: queryFingerprint({ path: 'key', direction: 'asc' }) };

const rejectsCursor = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isAppError(e) && e.status === 400 && e.code === 'invalid_request' && e.message.startsWith('query.cursor: ');
  }
  return false;
};

describe('cursors: opaque, HMAC-SHA256 protected, bound to list and query', () => {
  it('round-trips position and start key, URL-safe', () => {
    const state = { position: 30, startKey: { PK: 'CLIENT#a', SK: 'CLIENT', GSI1PK: 'TENANT#t1#CLIENTS', GSI1SK: 'a' } };
    const token = sealCursor(key, binding, state);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(openCursor(key, binding, token)).toEqual(state);
    expect(openCursor(key, binding, sealCursor(key, binding, { position: 7 }))).toEqual({ position: 7 });
  });

  it('every single-character change is refused', () => {
    const token = sealCursor(key, binding, { position: 10, startKey: { id: 'x' } });
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const forged = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(rejectsCursor(() => openCursor(key, binding, forged)), `position ${i}`).toBe(true);
    }
  });

  it('another collection, query or key is refused', () => {
    const token = sealCursor(key, binding, { position: 10 });
    expect(rejectsCursor(() => openCursor(key, { ...binding, collection: 'clients|GSI1|TENANT#t2#CLIENTS|' }, token))).toBe(true);
    expect(rejectsCursor(() => openCursor(key, { ...binding, query: queryFingerprint({ path: 'key', direction: 'desc' }) }, token))).toBe(true);
    expect(rejectsCursor(() => openCursor(randomBytes(32), binding, token))).toBe(true);
  });

  it('a correctly signed body that is not a cursor state is still refused (defence in depth)', () => {
    // The MAC input format of cursor.ts, rebuilt here to sign arbitrary bodies.
    const sign = (body: string) =>
      createHmac('sha256', key)
        .update(['list-cursor/v1', binding.collection, binding.query, body].map((x) => `${x.length}:${x}`).join('|'))
        .digest('base64url');
    const good = Buffer.from(JSON.stringify({ p: 3 })).toString('base64url');
    expect(openCursor(key, binding, `${good}.${sign(good)}`)).toEqual({ position: 3 });
    for (const state of [{ p: -1 }, { p: 1.5 }, { p: '3' }, { p: 1, k: [1] }, { p: 1, k: { a: {} } }, null]) {
      const body = Buffer.from(JSON.stringify(state)).toString('base64url');
      expect(rejectsCursor(() => openCursor(key, binding, `${body}.${sign(body)}`)), JSON.stringify(state)).toBe(true);
    }
    const notJson = Buffer.from('{nope').toString('base64url');
    expect(rejectsCursor(() => openCursor(key, binding, `${notJson}.${sign(notJson)}`))).toBe(true);
  });

  it('refuses a short key (programming error, not a client error)', () => {
    expect(() => sealCursor(Buffer.alloc(8), binding, { position: 0 })).toThrow(/too short/);
  });
});
