import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '#shared/store/core/table-keys.ts';
import { cachedRevocations } from '#shared/store/revocations/cached-revocations.ts';
import { revocationsRepository } from '#shared/store/revocations/revocations-repository.ts';
import { createTestTable } from '../support/service/dynamodb.ts';

const ref = (jti: string, clientId = 'client-1', verifier = 'key:kid-1') => ({ jti, clientId, verifier });

describe('revocation list with the per-container cache (docs/tokens.md)', () => {
  it('the revoking container sees a revocation at once; another within the cache time; stored in DynamoDB', async () => {
    const { db, tableName } = await createTestTable('revocations');
    let clock = 1_000_000;
    const table = revocationsRepository(db, tableName, () => new Date());
    const a = cachedRevocations(table, 1000, () => clock);
    const b = cachedRevocations(table, 1000, () => clock);
    const exp = new Date(Date.now() + 60_000);

    expect(await b.isRevoked(ref('jti-1'))).toBe(false); // B caches "not revoked"
    expect(await a.revoke(ref('jti-1'), exp)).toBe('revoked');
    expect(await a.isRevoked(ref('jti-1'))).toBe(true);
    expect(await table.isRevoked(ref('jti-1'))).toBe(true);
    expect(await b.isRevoked(ref('jti-1'))).toBe(false); // still within B's 1 s
    clock += 1001;
    expect(await b.isRevoked(ref('jti-1'))).toBe(true);
  });

  it('a revocation entry past its TTL is treated as absent (the token has expired anyway)', async () => {
    const { db, tableName } = await createTestTable('revocations-ttl');
    let now = new Date('2030-01-01T00:00:00Z');
    const table = revocationsRepository(db, tableName, () => now);
    await table.revoke(ref('jti-2', 'c'), new Date('2030-01-01T00:00:10Z'));
    expect(await table.isRevoked(ref('jti-2', 'c'))).toBe(true);
    now = new Date('2030-01-01T00:00:11Z');
    expect(await table.isRevoked(ref('jti-2', 'c'))).toBe(false);
  });

  it('with a cache time of 0 every check reads the table', async () => {
    const { db, tableName } = await createTestTable('revocations-0');
    const table = revocationsRepository(db, tableName, () => new Date());
    expect(cachedRevocations(table, 0)).toBe(table);
  });
});

describe('revocations are bound to the verifier and the client (docs/contract.md §8)', () => {
  it('an entry revokes only the token of its own verifier and client', async () => {
    const { db, tableName } = await createTestTable('revocations-bound');
    const table = revocationsRepository(db, tableName, () => new Date());
    const exp = new Date(Date.now() + 60_000);
    // A token forged under an HS256 Resource with the jti of the Default Client's token.
    expect(await table.revoke(ref('j', 'attacker', 'resource:t1:https://mine.example/'), exp)).toBe('revoked');
    expect(await table.isRevoked(ref('j', 'victim', 'key:kid-1'))).toBe(false);
    expect(await table.isRevoked(ref('j', 'attacker', 'key:kid-1'))).toBe(false);
    expect(await table.isRevoked(ref('j', 'victim', 'resource:t1:https://mine.example/'))).toBe(false);
    // The victim still revokes its own token: another entry.
    expect(await table.revoke(ref('j', 'victim', 'key:kid-1'), exp)).toBe('revoked');
    expect(await table.isRevoked(ref('j', 'victim', 'key:kid-1'))).toBe(true);
  });

  it("a jti already revoked under a verifier as another client's token is not taken over (conflict), and nothing changes", async () => {
    const { db, tableName } = await createTestTable('revocations-conflict');
    const table = revocationsRepository(db, tableName, () => new Date());
    const exp = new Date(Date.now() + 60_000);
    expect(await table.revoke(ref('j', 'owner', 'resource:t1:https://r.example/'), exp)).toBe('revoked');
    expect(await table.revoke(ref('j', 'other', 'resource:t1:https://r.example/'), exp)).toBe('conflict');
    expect(await table.isRevoked(ref('j', 'other', 'resource:t1:https://r.example/'))).toBe(false);
    expect(await table.isRevoked(ref('j', 'owner', 'resource:t1:https://r.example/'))).toBe(true);
    expect(await table.revoke(ref('j', 'owner', 'resource:t1:https://r.example/'), exp)).toBe('revoked'); // idempotent
  });

  it("an entry of the unbound format (before this release) still revokes its client's token, and only that", async () => {
    const { db, tableName } = await createTestTable('revocations-legacy');
    const table = revocationsRepository(db, tableName, () => new Date());
    const ttl = Math.floor(Date.now() / 1000) + 60;
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.revokedTokenUnbound('old'), type: 'RevokedToken', schema_version: 1, client_id: 'c', ttl },
      }),
    );
    expect(await table.isRevoked(ref('old', 'c'))).toBe(true);
    expect(await table.isRevoked(ref('old', 'someone-else'))).toBe(false);
    // The cached feed (the introspection path's BatchGetItem) reads it too.
    const feed = cachedRevocations(table, 1000).feed!;
    const wanted = feed.wanted(ref('old', 'c'));
    expect(wanted).toContainEqual(keys.revokedTokenUnbound('old'));
  });
});
