import { DecryptCommand, GenerateDataKeyPairWithoutPlaintextCommand } from '@aws-sdk/client-kms';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import type { KeyStateFeed, KeyStore } from '#shared/keys/key-store.ts';
import { NEXT_KEY_MIN_PUBLISHED_SECONDS } from '#shared/keys/key-timing.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { type FakeKms, fakeKms, KMS_SIGNING_KEY_ARN } from '../support/keys/fake-kms.ts';
import { claims, envelopeConfig, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { countingDb } from '../support/store/counting-db.ts';
import { makeLegacyState } from '../support/store/legacy-state.ts';

const STATE_KEYS = [tableKeys.signingKeyState('ES256'), tableKeys.signingKeyState('RS256')];

describe('KeyStateFeed: the token path folds the signer’s table read into its own BatchGetItem (docs/keys.md, "One read")', () => {
  let table: TestTable;
  let kms: FakeKms;
  const clock = testClock();
  beforeEach(async () => {
    table = await createTestTable('keys-feed');
    kms = fakeKms();
  });

  const config = () => envelopeConfig(table);
  /** A new container: its own key store (empty cache), its DynamoDB calls recorded. */
  const container = () => {
    const { db, calls } = countingDb(table.db);
    const keys = createKeyServices({ config: config(), db, now: clock.now, kms: kms.client }).keys;
    return { keys, feed: keys.stateFeed!, calls };
  };
  /** What the token path does: one BatchGetItem of its own items plus the wanted ones (here an unrelated client key). */
  const batchRead = async (feed: KeyStateFeed) => {
    const { Responses } = await table.db.send(
      new BatchGetCommand({
        RequestItems: { [table.tableName]: { Keys: [tableKeys.client('c-1'), ...feed.wanted()], ConsistentRead: true } },
      }),
    );
    return Responses?.[table.tableName] ?? [];
  };
  const firstKeys = async (alg: 'ES256' | 'RS256' = 'ES256', keys: KeyStore = container().keys) =>
    keys.signJwt(alg, {}, claims(clock.now()));

  it('wanted(): the two state items while the snapshot is stale; [] once fed, until the cache TTL has passed', async () => {
    await firstKeys();
    const { feed, calls } = container();
    expect(feed.wanted()).toEqual(STATE_KEYS);
    feed.offer(await batchRead(feed));
    expect(feed.wanted()).toEqual([]);
    clock.advance(config().keyCacheTtlMs / 1000);
    expect(feed.wanted()).toEqual(STATE_KEYS);
    expect(calls.names).toEqual([]);
  });

  it('read-ahead: one request re-reads the soon-stale states (rereading), the others keep the snapshot until the TTL; the re-read is installed', async () => {
    await firstKeys();
    const { feed } = container();
    feed.offer(await batchRead(feed));
    const ttl = config().keyCacheTtlMs;
    clock.advance((ttl - 100) / 1000); // seconds: within the read-ahead (ttl-cache.ts readAheadMs)
    expect(feed.wanted({ readAhead: true })).toEqual(STATE_KEYS);
    feed.rereading();
    expect(feed.wanted({ readAhead: true })).toEqual([]); // the others do not read too
    const readAt = clock.now();
    const items = await batchRead({ ...feed, wanted: () => STATE_KEYS });
    feed.offer(items, readAt);
    clock.advance(0.15); // past the first snapshot's TTL: the re-read one is fresh
    expect(feed.wanted()).toEqual([]);
    expect(feed.wanted({ readAhead: true })).toEqual([]);
    clock.advance(ttl / 1000);
    expect(feed.wanted()).toEqual(STATE_KEYS);
  });

  it('a read offered late counts from when it started: a read slower than the TTL leaves the snapshot stale', async () => {
    await firstKeys();
    const { feed } = container();
    const readAt = clock.now();
    const items = await batchRead(feed);
    clock.advance(config().keyCacheTtlMs / 1000 + 1); // the read took longer than the TTL
    feed.offer(items, readAt);
    expect(feed.wanted()).toEqual(STATE_KEYS);
    feed.offer(items, clock.now());
    expect(feed.wanted()).toEqual([]);
  });

  it('after offer() the cold signer makes zero DynamoDB calls and one Decrypt; the token verifies with jose against publishedKeys()', async () => {
    await firstKeys();
    const { keys, feed, calls } = container();
    const items = await batchRead(feed);
    expect(items.map((i) => i.SK)).toEqual(expect.arrayContaining(['ALG#ES256']));
    feed.offer(items);
    kms.mock.resetHistory();

    const token = await keys.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
    expect(calls.names).toEqual([]);
    expect(kms.mock.commandCalls(DecryptCommand)).toHaveLength(1);
    expect(kms.mock.calls()).toHaveLength(1);
    const { protectedHeader } = await verifyWithJwks(token, keys, clock.now(), ['ES256']);
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(calls.names).toEqual([]); // the JWKS came from the fed snapshot too

    // Nothing wanted now; offering an empty read anyway must not wipe the snapshot.
    feed.offer([]);
    await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(calls.names).toEqual([]);
  });

  it('the feed is refreshed like the store’s own read: after the TTL, a new offer() is the only read a rotation costs', async () => {
    await firstKeys();
    const { keys, feed, calls } = container();
    feed.offer(await batchRead(feed));
    const first = await keys.signJwt('ES256', {}, claims(clock.now()));
    // Another container rotated meanwhile (a state with a new current key).
    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
    const [r] = await rotateKeys({ config: config(), db: table.db, now: clock.now, kms: kms.client, algs: ['ES256'] });
    expect(r!.action).toBe('rotated');
    feed.offer(await batchRead(feed));
    const second = await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(decodeProtectedHeader(second).kid).toBe(r!.current);
    expect(calls.names).toEqual([]);
    await verifyWithJwks(first, keys, clock.now(), ['ES256']);
  });

  it('no state for the requested alg in the offered items: signJwt re-reads itself, then creates the first keys as before (empty table, or only the other alg)', async () => {
    const { keys, feed, calls } = container();
    feed.offer(await batchRead(feed)); // an empty table: no state items
    const es = await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand)).toHaveLength(2);
    // Keys are made on the store's own read only (an offered batch may have lost an item), then read back.
    expect(calls.names).toEqual(['BatchGetCommand', 'TransactWriteCommand', 'BatchGetCommand']);
    await verifyWithJwks(es, keys, clock.now(), ['ES256']);

    const other = container();
    other.feed.offer(await batchRead(other.feed)); // ES256 only
    other.calls.reset();
    const rs = await other.keys.signJwt('RS256', {}, claims(clock.now()));
    expect(other.calls.names).toEqual(['BatchGetCommand', 'TransactWriteCommand', 'BatchGetCommand']);
    await verifyWithJwks(rs, other.keys, clock.now(), ['RS256']);
  });

  it('an offered read that lacks an existing state (a partial batch) never makes new keys: the store reads for itself and signs with the stored key', async () => {
    const token = await firstKeys();
    const { keys, feed, calls } = container();
    feed.offer([]);
    kms.mock.resetHistory();
    const again = await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(decodeProtectedHeader(again).kid).toBe(decodeProtectedHeader(token).kid);
    expect(calls.names).toEqual(['BatchGetCommand']);
    expect(kms.mock.commandCalls(GenerateDataKeyPairWithoutPlaintextCommand)).toHaveLength(0);
  });

  it('old-format state items (no embedded keys) are not installed: the store reads for itself (the Query fallback) and signs correctly', async () => {
    const token = await firstKeys();
    await makeLegacyState(table, 'ES256');
    const { keys, feed, calls } = container();
    feed.offer(await batchRead(feed));
    expect(feed.wanted()).toEqual(STATE_KEYS);
    const again = await keys.signJwt('ES256', {}, claims(clock.now()));
    expect(calls.names).toEqual(['BatchGetCommand', 'QueryCommand']);
    expect(decodeProtectedHeader(again).kid).toBe(decodeProtectedHeader(token).kid);
    await verifyWithJwks(token, keys, clock.now(), ['ES256']);
  });

  it('kms-sign mode has no feed (it signs through KMS on every token anyway)', () => {
    const keys = createKeyServices({
      config: envelopeConfig(table, { KEY_MODE: 'kms-sign', KMS_SIGNING_KEY_ID: KMS_SIGNING_KEY_ARN }),
      db: table.db,
      now: clock.now,
      kms: kms.client,
    }).keys;
    expect(keys.stateFeed).toBeUndefined();
  });
});
