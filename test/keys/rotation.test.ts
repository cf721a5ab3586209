import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyPairWithoutPlaintextCommand } from '@aws-sdk/client-kms';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { NEXT_KEY_MIN_PUBLISHED_SECONDS, RETIRE_MARGIN_SECONDS } from '#shared/keys/key-timing.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { fakeKms } from '../support/keys/fake-kms.ts';
import { claims, envelopeConfig, localConfig, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { countingDb } from '../support/store/counting-db.ts';

const kidOf = (token: string) => decodeProtectedHeader(token).kid!;

describe('key rotation (docs/design.md §4, docs/keys.md)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keys-rotate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function setup(retireAfter = 3600) {
    const table: TestTable = await createTestTable('keys-rotate');
    const clock = testClock();
    const config = localConfig(table, join(dir, 'master.key'), { KEY_RETIRE_AFTER_SECONDS: String(retireAfter) });
    const container = (db: DynamoDBDocumentClient = table.db) => createKeyServices({ config, db, now: clock.now }).keys;
    const rotate = (force = false) => rotateKeys({ config, db: table.db, now: clock.now, algs: ['ES256'], force });
    return { table, clock, config, container, rotate };
  }

  it('timeline: next is published before it signs; old tokens verify after rotation; signers switch within the cache TTL; the previous key leaves after the retire period', async () => {
    const { table, clock, config, container, rotate } = await setup(3600);
    const signer = container();
    const verifierDb = countingDb(table.db);
    const verifier = container(verifierDb.db);

    const before = await signer.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    const [a, b] = await signer.publishedKeys();
    expect([a!.status, b!.status]).toEqual(['current', 'next']);
    expect(kidOf(before)).toBe(a!.kid);
    await verifyWithJwks(before, verifier, clock.now());

    // Too early: relying parties may not have fetched the next key yet.
    clock.advance(60);
    const [early] = await rotate();
    expect(early).toMatchObject({ action: 'skipped', current: a!.kid, next: b!.kid });

    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS);
    expect(kidOf(await signer.signJwt('ES256', {}, claims(clock.now())))).toBe(a!.kid); // the signer's cache is fresh now
    const [r] = await rotate();
    expect(r).toMatchObject({ action: 'rotated', current: b!.kid, previous: [a!.kid] });
    const rotatedAt = clock.now();

    // The signer's cache is still fresh: it may keep signing with A for at most the cache TTL...
    expect(kidOf(await signer.signJwt('ES256', {}, claims(clock.now())))).toBe(a!.kid);
    clock.advance(config.keyCacheTtlMs / 1000);
    // ...then it re-reads the partition and signs with B.
    const after = await signer.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    expect(kidOf(after)).toBe(b!.kid);

    // A token signed before the rotation still verifies, by jose over the JWKS and by our own verifier.
    await verifyWithJwks(before, signer, clock.now());
    expect((await verifier.publicKey(a!.kid))?.status).toBe('previous');
    await verifyWithJwks(after, verifier, clock.now());
    const published = await signer.publishedKeys();
    expect(published.map((k) => [k.kid, k.status])).toEqual([
      [b!.kid, 'current'],
      [r!.next!, 'next'],
      [a!.kid, 'previous'],
    ]);

    // A is kept for KEY_RETIRE_AFTER_SECONDS + margin (TTL on its item), then gone.
    const { Item } = await table.db.send(new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKey(a!.kid) }));
    const expiresAt = Math.ceil(rotatedAt.getTime() / 1000 + 3600 + RETIRE_MARGIN_SECONDS);
    expect(Item).toMatchObject({ status: 'previous', ttl: expiresAt, retired_at: rotatedAt.toISOString() });
    clock.advance(expiresAt - clock.now().getTime() / 1000 - 1);
    expect((await signer.publishedKeys()).map((k) => k.kid)).toContain(a!.kid);
    clock.advance(2);
    expect((await signer.publishedKeys()).map((k) => k.kid)).not.toContain(a!.kid);
    expect(await verifier.publicKey(a!.kid)).toBeUndefined();

    // The next run removes its item (TTL would too, later).
    const [r2] = await rotate();
    expect(r2).toMatchObject({ action: 'rotated', deleted: [a!.kid], previous: [b!.kid] });
    const gone = await table.db.send(new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKey(a!.kid) }));
    expect(gone.Item).toBeUndefined();
  });

  it("a verifier whose cache predates the rotation verifies the new key's tokens without re-reading (it was already published as next)", async () => {
    const { table, clock, container, rotate } = await setup();
    const signer = container();
    await signer.signJwt('ES256', {}, claims(clock.now()));
    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
    const { db, calls } = countingDb(table.db);
    const verifier = container(db);
    await verifier.publishedKeys(); // cached just before the rotation
    expect(calls.reads()).toBe(1);
    await rotate();
    const fresh = container(); // a container started after the rotation signs with the new key at once
    const token = await fresh.signJwt('ES256', {}, claims(clock.now()));
    clock.advance(1); // within the verifier's cache TTL
    expect(await verifier.publicKey(kidOf(token))).toMatchObject({ status: 'next' });
    expect(calls.reads()).toBe(1);
  });

  it('an unknown kid re-reads the partition at most once per interval (a flood of bogus kids cannot hammer the table)', async () => {
    const { table, clock, container } = await setup();
    await container().signJwt('ES256', {}, claims(clock.now()));
    const { db, calls } = countingDb(table.db);
    const verifier = container(db);
    for (let i = 0; i < 100; i++) expect(await verifier.publicKey(`bogus-${i}`)).toBeUndefined();
    expect(calls.reads()).toBe(2); // the first read, plus one miss refresh
    clock.advance(2);
    for (let i = 0; i < 100; i++) await verifier.publicKey(`bogus-${i}`);
    expect(calls.reads()).toBe(3);
  });

  it('concurrent rotations: exactly one wins (transaction conditioned on the state version)', async () => {
    const { clock, container, rotate } = await setup();
    await container().signJwt('ES256', {}, claims(clock.now()));
    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
    const results = (await Promise.all([rotate(), rotate(), rotate()])).map(([r]) => r!.action);
    expect(results.filter((a) => a === 'rotated')).toHaveLength(1);
    expect(results.filter((a) => a === 'skipped')).toHaveLength(2);
    const published = await container().publishedKeys();
    expect(published.filter((k) => k.status === 'current')).toHaveLength(1);
    expect(published.filter((k) => k.status === 'next')).toHaveLength(1);
  });

  it('first run creates both algorithms; a lost next key is re-published (it signs only from a later run)', async () => {
    const { table, clock, config, container } = await setup();
    const results = await rotateKeys({ config, db: table.db, now: clock.now });
    expect(results.map((r) => [r.alg, r.action])).toEqual([
      ['ES256', 'created'],
      ['RS256', 'created'],
    ]);
    await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: tableKeys.signingKey(results[0]!.next!) }));
    const [again] = await rotateKeys({ config, db: table.db, now: clock.now, algs: ['ES256'] });
    expect(again).toMatchObject({ action: 'published-next', current: results[0]!.current });
    expect(again!.next).not.toBe(results[0]!.next);
    expect((await container().publishedKeys()).map((k) => k.status)).toEqual(['current', 'next', 'current', 'next']);
  });

  it('envelope mode: after a rotation a warm signer pays one read and one Decrypt (new key), never GenerateDataKeyPair', async () => {
    const table = await createTestTable('keys-rotate-env');
    const kms = fakeKms();
    const clock = testClock();
    const config = envelopeConfig(table);
    const signer = createKeyServices({ config, db: table.db, now: clock.now, kms: kms.client }).keys;
    const first = await signer.signJwt('ES256', {}, claims(clock.now()));
    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
    const [r] = await rotateKeys({ config, db: table.db, now: clock.now, kms: kms.client, algs: ['ES256'] });
    expect(r!.action).toBe('rotated');
    expect(kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand)).toHaveLength(3); // current + next at first, new next now
    kms.mock.resetHistory();
    clock.advance(config.keyCacheTtlMs / 1000);
    const tokens = [];
    for (let i = 0; i < 20; i++) tokens.push(await signer.signJwt('ES256', {}, claims(clock.now())));
    expect(new Set(tokens.map(kidOf))).toEqual(new Set([r!.current]));
    expect(kms.mock.calls()).toHaveLength(1);
    expect(kms.mock.commandCalls(DecryptCommand)).toHaveLength(1);
    await verifyWithJwks(first, signer, clock.now());
  });
});
