import { describe, expect, it } from 'vitest';
import { cachedRevocations } from '../../shared/store/cached-revocations.ts';
import { revocationsRepository } from '../../shared/store/revocations-repository.ts';
import { createTestTable } from '../support/dynamodb.ts';

describe('revocation list with the per-container cache (docs/tokens.md)', () => {
  it('the revoking container sees a revocation at once; another within the cache time; stored in DynamoDB', async () => {
    const { db, tableName } = await createTestTable('revocations');
    let clock = 1_000_000;
    const table = revocationsRepository(db, tableName, () => new Date());
    const a = cachedRevocations(table, 1000, () => clock);
    const b = cachedRevocations(table, 1000, () => clock);
    const exp = new Date(Date.now() + 60_000);

    expect(await b.isRevoked('jti-1')).toBe(false); // B caches "not revoked"
    await a.revoke('jti-1', 'client-1', exp);
    expect(await a.isRevoked('jti-1')).toBe(true);
    expect(await table.isRevoked('jti-1')).toBe(true);
    expect(await b.isRevoked('jti-1')).toBe(false); // still within B's 1 s
    clock += 1001;
    expect(await b.isRevoked('jti-1')).toBe(true);
  });

  it('a revocation entry past its TTL is treated as absent (the token has expired anyway)', async () => {
    const { db, tableName } = await createTestTable('revocations-ttl');
    let now = new Date('2030-01-01T00:00:00Z');
    const table = revocationsRepository(db, tableName, () => now);
    await table.revoke('jti-2', 'c', new Date('2030-01-01T00:00:10Z'));
    expect(await table.isRevoked('jti-2')).toBe(true);
    now = new Date('2030-01-01T00:00:11Z');
    expect(await table.isRevoked('jti-2')).toBe(false);
  });

  it('with a cache time of 0 every check reads the table', async () => {
    const { db, tableName } = await createTestTable('revocations-0');
    const table = revocationsRepository(db, tableName, () => new Date());
    expect(cachedRevocations(table, 0)).toBe(table);
  });
});
