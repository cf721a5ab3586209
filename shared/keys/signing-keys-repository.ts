import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../store/core/reads/read-items.ts';
import { TABLE_KEYS } from '../store/core/table-definition.ts';
import { keys } from '../store/core/table-keys.ts';
import { translateError } from '../store/core/translate-error.ts';
import type { AsymmetricAlg, KeyStatus } from './key-store.ts';
import {
  embedsKeys,
  isStateItem,
  keyItem,
  namedKids,
  partitionOfStates,
  stateItem,
  stateItemKeys,
  toKey,
  toState,
} from './signing-key-items.ts';

/**
 * Signing keys in the table (docs/keys.md). Partition `SIGNING_KEYS` holds two kinds of item
 * (shapes: signing-key-items.ts):
 *
 * - `KEY#{kid}` (type `SigningKey`): one key pair. `jwk` = public JWK as published; `wrapped_private_key`
 *   = PKCS #8 private key wrapped by KMS or the local master key (`wrapped_by` `kms`/`local`),
 *   base64url; in kms-sign mode (`wrapped_by` `kms-sign`) no private key, `kms_key_id` instead; `status`
 *   mirrors the state item for people reading the table; `created_at`, `activated_at`, `retired_at`;
 *   `ttl` once demoted (DynamoDB deletes it after every token it signed has expired).
 * - `ALG#{alg}` (type `SigningKeyState`): which kid is `current_kid` / `next_kid` and the `previous`
 *   list `[{kid, retired_at, expires_at}]`, with a `version`, and under `keys` a copy of the record
 *   of every key it names. This item is the truth about status: every change is one transaction
 *   conditioned on it, so two writers can never both win, and a reader that sees it sees one
 *   consistent assignment with the keys it names (one item is read whole). So a signer reads the
 *   two state items and nothing else; the `KEY#` items are history, TTL and a view for people.
 */
export type { KeyPartition, KeyStateRecord, PreviousKeyRef, SigningKeyRecord } from './signing-key-records.ts';

import type { KeyPartition, KeyStateRecord, SigningKeyRecord } from './signing-key-records.ts';

export interface RotationWrite {
  alg: AsymmetricAlg;
  expectedVersion: number;
  /** The state after the change. */
  state: Omit<KeyStateRecord, 'version' | 'alg'>;
  /** New key items (condition: not there yet). */
  put: SigningKeyRecord[];
  /** Status changes on existing key items. */
  update: { kid: string; status: KeyStatus; at: string; ttl?: number }[];
  /** Key items past their retirement (TTL would remove them too, some time later). */
  delete: string[];
  /** ISO time of the change (the injected clock). */
  at: string;
  /**
   * Records of the existing keys as the caller read them (`partition.keys`). The repository embeds
   * in the state item those the new state names, with `put` and `update` applied; a named kid found
   * in neither is left out (a reader then treats it as missing, as it did a missing `KEY#` item).
   */
  records: ReadonlyMap<string, SigningKeyRecord>;
}

export interface SigningKeysRepository {
  /**
   * What a signer needs: the two state items, one strongly consistent BatchGetItem. Falls back to
   * `loadPartition()` when a state item does not embed its keys (written before they were embedded).
   */
  load(): Promise<KeyPartition>;
  /**
   * The whole partition, every `KEY#` item included: one strongly consistent Query (paged only if it
   * ever exceeds 1 MB). For old state items, the upgrade, and kms-sign registration (which must see a
   * key item no state names any more).
   */
  loadPartition(): Promise<KeyPartition>;
  /** First keys of an alg (kms-sign: no next key). False when another writer created them first. */
  createInitial(alg: AsymmetricAlg, current: SigningKeyRecord, next?: SigningKeyRecord): Promise<boolean>;
  /** Any later change (rotation, publishing a next key, embedding keys). False when the state changed meanwhile. */
  write(change: RotationWrite): Promise<boolean>;
}

type TxItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export function signingKeysRepository(db: DynamoDBDocumentClient, tableName: string): SigningKeysRepository {
  const putKey = (r: SigningKeyRecord): TxItem => ({
    Put: { TableName: tableName, Item: keyItem(r), ConditionExpression: 'attribute_not_exists(PK)' },
  });

  const loadPartition = async (): Promise<KeyPartition> => {
    const states = new Map<AsymmetricAlg, KeyStateRecord>();
    const records = new Map<string, SigningKeyRecord>();
    const legacyStates = new Set<AsymmetricAlg>();
    let start: Record<string, unknown> | undefined;
    try {
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': keys.signingKeysPartition },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) {
          if (isStateItem(item)) {
            const s = toState(item);
            if (s) states.set(s.alg, s);
            if (s && !embedsKeys(item)) legacyStates.add(s.alg);
          } else if (item.type === 'SigningKey') {
            const k = toKey(item);
            if (k) records.set(k.kid, k);
          }
        }
        start = page.LastEvaluatedKey;
      } while (start);
    } catch (err) {
      return translateError(err);
    }
    return { states, keys: records, legacyStates };
  };

  return {
    async load() {
      // State items never carry a TTL, so the clock getItems filters expired items with is moot.
      const found = await getItems(db, tableName, stateItemKeys(), new Date());
      return partitionOfStates([...found.values()]) ?? loadPartition();
    },

    loadPartition,

    async createInitial(alg, current, next) {
      const state = { currentKid: current.kid, nextKid: next?.kid, previous: [] };
      return transact(db, [
        {
          Put: {
            TableName: tableName,
            Item: stateItem(alg, state, 1, current.createdAt, next ? [current, next] : [current]),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        putKey(current),
        ...(next ? [putKey(next)] : []),
      ]);
    },

    async write(change) {
      const { at } = change;
      return transact(db, [
        {
          Put: {
            TableName: tableName,
            Item: stateItem(change.alg, change.state, change.expectedVersion + 1, at, recordsAfter(change)),
            ConditionExpression: '#version = :v',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':v': change.expectedVersion },
          },
        },
        ...change.put.map(putKey),
        ...change.update.map((u): TxItem => {
          // `status` and `ttl` are DynamoDB reserved words. Keep in step with `updated()` below.
          const retire = u.status === 'previous';
          return {
            Update: {
              TableName: tableName,
              Key: keys.signingKey(u.kid),
              // A key made current again (kms-sign: the configured key switched back) loses its TTL.
              UpdateExpression: retire
                ? 'SET #status = :s, retired_at = :at, #ttl = :ttl'
                : 'SET #status = :s, activated_at = :at REMOVE #ttl',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#status': 'status', '#ttl': TABLE_KEYS.ttlAttribute },
              ExpressionAttributeValues: retire ? { ':s': u.status, ':at': u.at, ':ttl': u.ttl } : { ':s': u.status, ':at': u.at },
            },
          };
        }),
        ...change.delete.map((kid): TxItem => ({ Delete: { TableName: tableName, Key: keys.signingKey(kid) } })),
      ]);
    },
  };
}

/** The records the new state names, as their `KEY#` items are after this change. */
function recordsAfter(change: RotationWrite): SigningKeyRecord[] {
  const byKid = new Map(change.records);
  for (const r of change.put) byKid.set(r.kid, r);
  for (const u of change.update) {
    const r = byKid.get(u.kid);
    if (r) byKid.set(u.kid, updated(r, u));
  }
  return namedKids(change.state).flatMap((kid) => byKid.get(kid) ?? []);
}

/** What the `Update` of a key item in `write()` does, applied to its record. */
function updated(r: SigningKeyRecord, u: RotationWrite['update'][number]): SigningKeyRecord {
  return u.status === 'previous'
    ? { ...r, status: u.status, retiredAt: u.at, ttl: u.ttl }
    : { ...r, status: u.status, activatedAt: u.at, ttl: undefined };
}

/** True when written; false when a condition failed or a concurrent transaction won (re-read). */
async function transact(db: DynamoDBDocumentClient, items: TxItem[]): Promise<boolean> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (err) {
    const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
    const reasons = (e.CancellationReasons ?? []).map((r) => r.Code);
    if (e.name === 'TransactionConflictException') return false;
    if (e.name === 'TransactionCanceledException' && reasons.some((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict'))
      return false;
    return translateError(err);
  }
}
