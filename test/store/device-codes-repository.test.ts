import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { formatUserCode, newUserCode, normaliseUserCode, USER_CODE_ALPHABET } from '#shared/records/user-code.ts';
import { deviceCodeHash, deviceCodesRepository } from '#shared/store/sessions/device-codes-repository.ts';
import { userCodeAttemptsRepository } from '#shared/store/sessions/user-code-attempts-repository.ts';
import { createTestTable } from '../support/service/dynamodb.ts';

const NEW = { clientId: 'client-1', tenantId: 'tenant-1', scopes: ['openid'], lifetimeSeconds: 600, intervalSeconds: 5 };

describe('user codes (RFC 8628 §6.1)', () => {
  it('are 8 characters of BCDFGHJKLMNPQRSTVWXZ: no vowels, no digits, nothing ambiguous (0/O, 1/I, 5/S, 8/B)', () => {
    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = newUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const c of code) seen.add(c);
    }
    for (const ambiguous of ['0', 'O', '1', 'I', '5', '8', 'A', 'E', 'U', 'Y']) expect(seen.has(ambiguous)).toBe(false);
    expect(seen.size).toBe(20); // every letter is used: the whole 34.5 bits
  });

  it('what people type is read case-insensitively with dashes and spaces ignored; anything else is not a code', () => {
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
    for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', ' bcdf ghjk ', 'BcDfGhJk', 'BCDF–GHJK'])
      expect(normaliseUserCode(typed)).toBe('BCDFGHJK');
    for (const typed of ['', 'BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-EFGH', 'BCDF-GHJ0', '<script>', 'B'.repeat(100)]) {
      expect(normaliseUserCode(typed), typed).toBeUndefined();
    }
  });
});

describe('device codes repository', () => {
  it('stores the SHA-256 of the device code and a user-code item; finds a pending code by its user code', async () => {
    const { db, tableName } = await createTestTable('device');
    const repo = deviceCodesRepository(db, tableName, () => new Date());
    const { deviceCode, device } = await repo.create(NEW);
    expect(device.hash).toBe(deviceCodeHash(deviceCode));
    expect((await repo.findPendingByUserCode(device.user_code))?.hash).toBe(device.hash);
    const { Items } = await db.send(new ScanCommand({ TableName: tableName }));
    expect(Items!.map((i) => i.PK).sort()).toEqual([`DEVICE#${device.hash}`, `USER_CODE#${device.user_code}`].sort());
    expect(JSON.stringify(Items)).not.toContain(deviceCode);
  });

  it('a decided, expired or unknown code is not found by its user code; a decision is recorded once', async () => {
    const { db, tableName } = await createTestTable('device');
    let now = new Date('2030-01-01T00:00:00.000Z');
    const repo = deviceCodesRepository(db, tableName, () => now);
    const a = await repo.create(NEW);
    const decide = () => repo.decide(a.device.hash, { decision: 'allow', userId: 'u', authTime: 1, grantedScopes: ['openid'] });
    const results = await Promise.all(Array.from({ length: 10 }, decide));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await repo.findPendingByUserCode(a.device.user_code)).toBeUndefined();
    const b = await repo.create(NEW);
    now = new Date(now.getTime() + 601_000);
    expect(await repo.findPendingByUserCode(b.device.user_code)).toBeUndefined();
    expect(await repo.decide(b.device.hash, { decision: 'deny', userId: 'u', authTime: 1, grantedScopes: [] })).toBe(false);
    expect(await repo.findPendingByUserCode('BBBBBBBB')).toBeUndefined();
  });
});

describe('user-code attempts (RFC 8628 §5.1)', () => {
  it('at most 5 per address and window, even in parallel; a right code gives its count back; other addresses are not affected', async () => {
    const { db, tableName } = await createTestTable('attempts');
    let now = new Date('2030-01-01T00:00:30.000Z');
    const repo = userCodeAttemptsRepository(db, tableName, () => now, { maxWrong: 5, windowSeconds: 600 });
    const results = await Promise.all(Array.from({ length: 20 }, () => repo.admit('203.0.113.7')));
    expect(results.filter((r) => r.admitted)).toHaveLength(5);
    expect(results.find((r) => !r.admitted)).toEqual({ admitted: false, retryAfterSeconds: 570 });
    expect((await repo.admit('198.51.100.1')).admitted).toBe(true);
    await repo.refund('203.0.113.7');
    expect((await repo.admit('203.0.113.7')).admitted).toBe(true);
    expect((await repo.admit('203.0.113.7')).admitted).toBe(false);
    now = new Date('2030-01-01T00:10:00.000Z'); // the next window
    expect((await repo.admit('203.0.113.7')).admitted).toBe(true);
    const { Items } = await db.send(new ScanCommand({ TableName: tableName }));
    expect(JSON.stringify(Items)).not.toContain('203.0.113.7'); // the address is stored hashed
  });
});
