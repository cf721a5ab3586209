import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { openCursor, queryFingerprint, sealCursor } from '#shared/lists/cursor.ts';

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

describe('cursors: AES-256-GCM encrypted (opaque), tamper-evident, bound to list and query', () => {
  it('round-trips position and start key, URL-safe, and shows nothing of the state', () => {
    const state = { position: 30, startKey: { PK: 'CLIENT#a', SK: 'CLIENT', GSI1PK: 'TENANT#t1#CLIENTS', GSI1SK: 'a' } };
    const token = sealCursor(key, binding, state);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(openCursor(key, binding, token)).toEqual(state);
    expect(openCursor(key, binding, sealCursor(key, binding, { position: 7 }))).toEqual({ position: 7 });
    const decoded = Buffer.from(token, 'base64url').toString('latin1');
    for (const clear of ['CLIENT#a', 'TENANT#t1', 'GSI1PK', '"p"']) expect(decoded).not.toContain(clear);
    expect(sealCursor(key, binding, state)).not.toBe(token); // a random IV per cursor
  });

  it('every single-character change is refused', () => {
    const token = sealCursor(key, binding, { position: 10, startKey: { id: 'x' } });
    for (let i = 0; i < token.length; i++) {
      const forged = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expect(
        rejectsCursor(() => openCursor(key, binding, forged)),
        `position ${i}`,
      ).toBe(true);
    }
    expect(rejectsCursor(() => openCursor(key, binding, token.slice(0, -1)))).toBe(true);
    expect(rejectsCursor(() => openCursor(key, binding, ''))).toBe(true);
    expect(rejectsCursor(() => openCursor(key, binding, `${token}.x`))).toBe(true);
  });

  it('another collection, query or key is refused', () => {
    const token = sealCursor(key, binding, { position: 10 });
    expect(rejectsCursor(() => openCursor(key, { ...binding, collection: 'clients|GSI1|TENANT#t2#CLIENTS|' }, token))).toBe(true);
    expect(rejectsCursor(() => openCursor(key, { ...binding, query: queryFingerprint({ path: 'key', direction: 'desc' }) }, token))).toBe(
      true,
    );
    expect(rejectsCursor(() => openCursor(randomBytes(32), binding, token))).toBe(true);
  });

  it('a correctly encrypted body that is not a cursor state is still refused (defence in depth)', () => {
    // The format of cursor.ts, rebuilt here to encrypt arbitrary plaintexts.
    const seal = (plaintext: string) => {
      const aesKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'list-cursor/v2', 32));
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', aesKey, iv).setAAD(
        Buffer.from(['list-cursor/v2', binding.collection, binding.query].map((x) => `${x.length}:${x}`).join('|')),
      );
      return Buffer.concat([iv, c.update(plaintext), c.final(), c.getAuthTag()]).toString('base64url');
    };
    expect(openCursor(key, binding, seal(JSON.stringify({ p: 3 })))).toEqual({ position: 3 });
    for (const state of [{ p: -1 }, { p: 1.5 }, { p: '3' }, { p: 1, k: [1] }, { p: 1, k: { a: {} } }, null]) {
      expect(
        rejectsCursor(() => openCursor(key, binding, seal(JSON.stringify(state)))),
        JSON.stringify(state),
      ).toBe(true);
    }
    expect(rejectsCursor(() => openCursor(key, binding, seal('{nope')))).toBe(true);
  });

  it('a cursor of the earlier signed format (list-cursor/v1, readable state) is refused', () => {
    const v1 = `${Buffer.from(JSON.stringify({ p: 3 })).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    expect(rejectsCursor(() => openCursor(key, binding, v1))).toBe(true);
  });

  it('refuses a short key (programming error, not a client error)', () => {
    expect(() => sealCursor(Buffer.alloc(8), binding, { position: 0 })).toThrow(/too short/);
  });
});
