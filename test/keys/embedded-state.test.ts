import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyServices } from '#shared/keys/create-key-services.ts';
import { embedKeysInStates } from '#shared/keys/embed-keys-in-states.ts';
import type { AsymmetricAlg } from '#shared/keys/key-store.ts';
import { NEXT_KEY_MIN_PUBLISHED_SECONDS, RETIRE_MARGIN_SECONDS } from '#shared/keys/key-timing.ts';
import { rotateKeys } from '#shared/keys/rotate-keys.ts';
import { signingKeysRepository } from '#shared/keys/signing-keys-repository.ts';
import { keys as tableKeys } from '#shared/store/core/table-keys.ts';
import { claims, localConfig, testClock, verifyWithJwks } from '../support/keys/key-test-env.ts';
import { createTestTable, type TestTable } from '../support/service/dynamodb.ts';
import { countingDb } from '../support/store/counting-db.ts';
import { makeLegacyState, stateItemOf } from '../support/store/legacy-state.ts';

type Item = Record<string, unknown>;
const RETIRE = 3600;
const EMBEDDED_FIELDS = ['jwk', 'wrapped_private_key', 'wrapped_by', 'kms_key_id', 'created_at', 'activated_at', 'retired_at'];

describe('state items carry their keys (docs/keys.md, "One read")', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'keys-embedded-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function setup() {
    const table: TestTable = await createTestTable('keys-embedded');
    const clock = testClock();
    const config = localConfig(table, join(dir, 'master.key'), { KEY_RETIRE_AFTER_SECONDS: String(RETIRE) });
    const container = (db = table.db) => createKeyServices({ config, db, now: clock.now }).keys;
    const rotate = (algs: AsymmetricAlg[] = ['ES256'], force = true) => rotateKeys({ config, db: table.db, now: clock.now, algs, force });
    const repo = (db = table.db) => signingKeysRepository(db, table.tableName);
    return { table, clock, container, rotate, repo };
  }

  const keyItem = async (table: TestTable, kid: string): Promise<Item> => {
    const { Item } = await table.db.send(
      new GetCommand({ TableName: table.tableName, Key: tableKeys.signingKey(kid), ConsistentRead: true }),
    );
    return Item!;
  };

  /** The embedded copy equals the `KEY#` item, field by field (status and ttl are not copied: the state says them). */
  async function expectEmbeddedMatchesKeyItems(table: TestTable, state: Item) {
    const embedded = state.keys as Record<string, Item>;
    for (const [kid, copy] of Object.entries(embedded)) {
      const item = await keyItem(table, kid);
      const expected = Object.fromEntries(EMBEDDED_FIELDS.filter((f) => item[f] !== undefined).map((f) => [f, item[f]]));
      expect(copy).toEqual(expected);
      expect(copy).not.toHaveProperty('status');
      expect(copy).not.toHaveProperty('ttl');
    }
  }

  it('createInitial: the state item embeds exactly its current and next keys, equal to their KEY# items', async () => {
    const { table, clock, container } = await setup();
    const keys = container();
    await keys.signJwt('ES256', {}, claims(clock.now()));
    const state = (await stateItemOf(table, 'ES256'))!;
    expect(state).toMatchObject({ type: 'SigningKeyState', schema_version: 2, version: 1 });
    expect(Object.keys(state.keys as Item).sort()).toEqual([state.current_kid, state.next_kid].sort());
    await expectEmbeddedMatchesKeyItems(table, state);
    // The JWKS is what the KEY# items say, unchanged by the copy.
    const published = await container().publishedKeys();
    expect(published.map((k) => k.kid)).toEqual([state.current_kid, state.next_kid]);
    for (const k of published) expect(k.jwk).toEqual((await keyItem(table, k.kid)).jwk);
  });

  it('rotation: the new state embeds its new current, next and previous keys; a previous key past the retire period is no longer embedded', async () => {
    const { table, clock, container, rotate } = await setup();
    await container().signJwt('ES256', {}, claims(clock.now()));
    const a = (await stateItemOf(table, 'ES256'))!;
    clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
    const [r1] = await rotate();
    const rotatedAt = clock.now().toISOString();
    const s1 = (await stateItemOf(table, 'ES256'))!;
    expect(r1).toMatchObject({ action: 'rotated', current: a.next_kid, previous: [a.current_kid] });
    expect(Object.keys(s1.keys as Item).sort()).toEqual([r1!.current, r1!.next, a.current_kid].sort());
    const embedded = s1.keys as Record<string, Item>;
    expect(embedded[a.current_kid as string]).toMatchObject({ retired_at: rotatedAt });
    expect(embedded[r1!.current!]).toMatchObject({ activated_at: rotatedAt });
    await expectEmbeddedMatchesKeyItems(table, s1);
    expect((await container().publishedKeys()).map((k) => [k.kid, k.status])).toEqual([
      [r1!.current, 'current'],
      [r1!.next, 'next'],
      [a.current_kid, 'previous'],
    ]);

    clock.advance(RETIRE + RETIRE_MARGIN_SECONDS + 1);
    const [r2] = await rotate();
    expect(r2).toMatchObject({ action: 'rotated', deleted: [a.current_kid], previous: [r1!.current] });
    const s2 = (await stateItemOf(table, 'ES256'))!;
    expect(Object.keys(s2.keys as Item).sort()).toEqual([r2!.current, r2!.next, r1!.current].sort());
    expect(s2.keys).not.toHaveProperty(a.current_kid as string);
    await expectEmbeddedMatchesKeyItems(table, s2);
  });

  it('load() is one BatchGetItem of the two state items and tells what the partition Query tells', async () => {
    const { table, rotate, repo } = await setup();
    await rotate(['ES256', 'RS256']); // first run: both algorithms
    const { db, calls } = countingDb(table.db);
    const fromStates = await repo(db).load();
    expect(calls.names).toEqual(['BatchGetCommand']);
    const fromQuery = await repo().loadPartition();
    expect(fromStates.states).toEqual(fromQuery.states);
    expect(fromStates.keys).toEqual(fromQuery.keys);
    expect(fromStates.keys.size).toBe(4);
    expect(fromStates.legacyStates.size).toBe(0);
  });

  it('load() of an empty table is the one BatchGetItem too (no keys yet, nothing to query)', async () => {
    const { table, repo } = await setup();
    const { db, calls } = countingDb(table.db);
    const partition = await repo(db).load();
    expect(calls.names).toEqual(['BatchGetCommand']);
    expect(partition.states.size).toBe(0);
  });

  it('load() falls back to the partition Query when a state item has no embedded keys (written before this change)', async () => {
    const { table, clock, container, rotate, repo } = await setup();
    await rotate(['ES256', 'RS256']);
    const token = await container().signJwt('RS256', {}, claims(clock.now()));
    await makeLegacyState(table, 'RS256'); // ES256 still embeds: one old item is enough to fall back
    const { db, calls } = countingDb(table.db);
    const partition = await repo(db).load();
    expect(calls.names).toEqual(['BatchGetCommand', 'QueryCommand']);
    expect([...partition.legacyStates]).toEqual(['RS256']);
    expect(partition.states.get('RS256')?.currentKid).toBe(decodeProtectedHeader(token).kid);
    expect(partition.keys.size).toBe(4);
    // A container on such a table signs and verifies as before.
    const fresh = container(db);
    const again = await fresh.signJwt('RS256', {}, claims(clock.now()));
    expect(decodeProtectedHeader(again).kid).toBe(decodeProtectedHeader(token).kid);
    await verifyWithJwks(token, fresh, clock.now(), ['RS256']);
    // Any rotation writes the state whole again, with its keys.
    const [r] = await rotate(['RS256']);
    expect(r!.action).toBe('rotated');
    const state = (await stateItemOf(table, 'RS256'))!;
    expect(state.schema_version).toBe(2);
    expect(Object.keys(state.keys as Item).sort()).toEqual([r!.current, r!.next, ...r!.previous].sort());
  });

  describe('embedKeysInStates: the upgrade of old state items', () => {
    it('rewrites each old state once (version bumped, keys embedded); a second run does nothing; then load() is one BatchGetItem', async () => {
      const { table, clock, rotate, repo } = await setup();
      await rotate(['ES256', 'RS256']);
      const before = { ES256: (await stateItemOf(table, 'ES256'))!, RS256: (await stateItemOf(table, 'RS256'))! };
      await makeLegacyState(table, 'ES256');
      await makeLegacyState(table, 'RS256');
      clock.advance(10);

      expect(await embedKeysInStates(repo(), clock.now)).toBe(2);
      for (const alg of ['ES256', 'RS256'] as const) {
        const after = (await stateItemOf(table, alg))!;
        expect(after).toMatchObject({
          schema_version: 2,
          version: (before[alg].version as number) + 1,
          updated_at: clock.now().toISOString(),
        });
        expect(after.keys).toEqual(before[alg].keys);
        expect([after.current_kid, after.next_kid, after.previous]).toEqual([
          before[alg].current_kid,
          before[alg].next_kid,
          before[alg].previous,
        ]);
      }

      expect(await embedKeysInStates(repo(), clock.now)).toBe(0);
      expect((await stateItemOf(table, 'ES256'))!.version).toBe((before.ES256.version as number) + 1);
      const { db, calls } = countingDb(table.db);
      await repo(db).load();
      expect(calls.names).toEqual(['BatchGetCommand']);
    });

    it('concurrent upgrades: each old state is rewritten by exactly one of them (version condition)', async () => {
      const { table, clock, rotate, repo } = await setup();
      await rotate(['ES256', 'RS256']);
      await makeLegacyState(table, 'ES256');
      await makeLegacyState(table, 'RS256');
      const counts = await Promise.all([
        embedKeysInStates(repo(), clock.now),
        embedKeysInStates(repo(), clock.now),
        embedKeysInStates(repo(), clock.now),
      ]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
      for (const alg of ['ES256', 'RS256'] as const) expect((await stateItemOf(table, alg))!.version).toBe(2);
    });

    it('after the upgrade a rotation works: a token signed before it verifies after it, the new key signs, the state embeds the new names', async () => {
      const { table, clock, container, rotate, repo } = await setup();
      const signer = container();
      const before = await signer.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
      await makeLegacyState(table, 'ES256');
      expect(await embedKeysInStates(repo(), clock.now)).toBe(1);
      clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
      const [r] = await rotate(['ES256'], false);
      expect(r).toMatchObject({ action: 'rotated', previous: [decodeProtectedHeader(before).kid] });
      const state = (await stateItemOf(table, 'ES256'))!;
      expect(Object.keys(state.keys as Item).sort()).toEqual([r!.current, r!.next, decodeProtectedHeader(before).kid].sort());

      const fresh = container();
      const after = await fresh.signJwt('ES256', { typ: 'at+jwt' }, claims(clock.now()));
      expect(decodeProtectedHeader(after).kid).toBe(r!.current);
      await verifyWithJwks(before, fresh, clock.now(), ['ES256']);
      await verifyWithJwks(after, signer, clock.now(), ['ES256']);
    });

    it('an upgrade after a rotation by older code embeds the previous key too (the state names it)', async () => {
      const { table, clock, container, rotate, repo } = await setup();
      const before = await container().signJwt('ES256', {}, claims(clock.now()));
      clock.advance(NEXT_KEY_MIN_PUBLISHED_SECONDS + 1);
      await rotate();
      await makeLegacyState(table, 'ES256');
      expect(await embedKeysInStates(repo(), clock.now)).toBe(1);
      const state = (await stateItemOf(table, 'ES256'))!;
      expect(state.keys).toHaveProperty(decodeProtectedHeader(before).kid!);
      await expectEmbeddedMatchesKeyItems(table, state);
      const { Items } = await table.db.send(
        new QueryCommand({
          TableName: table.tableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': 'SIGNING_KEYS' },
          ConsistentRead: true,
        }),
      );
      expect(Items!.filter((i) => i.type === 'SigningKey')).toHaveLength(3);
      await verifyWithJwks(before, container(), clock.now(), ['ES256']);
    });
  });
});
