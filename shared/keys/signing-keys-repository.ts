import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { keys } from '../store/keys.ts';
import { TABLE_KEYS } from '../store/table-definition.ts';
import { translateError } from '../store/translate-error.ts';
import { isAsymmetricAlg } from './jwk.ts';
import type { AsymmetricAlg, KeyStatus } from './key-store.ts';

/**
 * Signing keys in the table (docs/keys.md). Partition `SIGNING_KEYS` holds two kinds of item:
 *
 * - `KEY#{kid}` (type `SigningKey`): one key pair. `jwk` = public JWK as published; `wrapped_private_key`
 *   = PKCS #8 private key wrapped by KMS or the local master key (`wrapped_by` `kms`/`local`),
 *   base64url; in kms-sign mode (`wrapped_by` `kms-sign`) no private key, `kms_key_id` instead; `status`
 *   mirrors the state item for people reading the table; `created_at`, `activated_at`, `retired_at`;
 *   `ttl` once demoted (DynamoDB deletes it after every token it signed has expired).
 * - `ALG#{alg}` (type `SigningKeyState`): which kid is `current_kid` / `next_kid` and the `previous`
 *   list `[{kid, retired_at, expires_at}]`, with a `version`. This item is the truth about status:
 *   every change is one transaction conditioned on it, so two writers can never both win, and a
 *   reader that sees it sees one consistent assignment (a Query is not isolated from transactions
 *   across items; one item is).
 */
export interface SigningKeyRecord {
  kid: string;
  alg: AsymmetricAlg;
  jwk: JWK;
  /** Absent for a kms-sign key (the private key is in KMS). */
  wrappedPrivateKey?: string | undefined;
  wrappedBy: 'kms' | 'local' | 'kms-sign';
  /** kms-sign: the asymmetric KMS key that signs with this key. */
  kmsKeyId?: string | undefined;
  status: KeyStatus;
  createdAt: string;
  activatedAt?: string | undefined;
  retiredAt?: string | undefined;
  ttl?: number | undefined;
}

export interface PreviousKeyRef {
  kid: string;
  retiredAt: string;
  /** Epoch seconds after which the key is no longer published. */
  expiresAt: number;
}

export interface KeyStateRecord {
  alg: AsymmetricAlg;
  currentKid: string;
  nextKid: string | undefined;
  previous: PreviousKeyRef[];
  version: number;
}

export interface KeyPartition {
  states: Map<AsymmetricAlg, KeyStateRecord>;
  keys: Map<string, SigningKeyRecord>;
}

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
}

export interface SigningKeysRepository {
  /** The whole partition: one strongly consistent Query (paged only if it ever exceeds 1 MB). */
  load(): Promise<KeyPartition>;
  /** First keys of an alg (kms-sign: no next key). False when another writer created them first. */
  createInitial(alg: AsymmetricAlg, current: SigningKeyRecord, next?: SigningKeyRecord): Promise<boolean>;
  /** Any later change (rotation, publishing a next key). False when the state changed meanwhile. */
  write(change: RotationWrite): Promise<boolean>;
}

type TxItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export function signingKeysRepository(db: DynamoDBDocumentClient, tableName: string): SigningKeysRepository {
  const keyItem = (r: SigningKeyRecord) => ({
    ...keys.signingKey(r.kid),
    type: 'SigningKey',
    schema_version: 1,
    kid: r.kid,
    alg: r.alg,
    jwk: r.jwk,
    wrapped_private_key: r.wrappedPrivateKey,
    wrapped_by: r.wrappedBy,
    kms_key_id: r.kmsKeyId,
    status: r.status,
    created_at: r.createdAt,
    activated_at: r.activatedAt,
    retired_at: r.retiredAt,
    [TABLE_KEYS.ttlAttribute]: r.ttl,
  });
  const putKey = (r: SigningKeyRecord): TxItem => ({
    Put: { TableName: tableName, Item: keyItem(r), ConditionExpression: 'attribute_not_exists(PK)' },
  });

  return {
    async load() {
      const states = new Map<AsymmetricAlg, KeyStateRecord>();
      const records = new Map<string, SigningKeyRecord>();
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
            if (item.type === 'SigningKeyState') {
              const s = toState(item);
              if (s) states.set(s.alg, s);
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
      return { states, keys: records };
    },

    async createInitial(alg, current, next) {
      return transact(db, [
        {
          Put: {
            TableName: tableName,
            Item: { ...keys.signingKeyState(alg), ...stateAttrs(alg, { currentKid: current.kid, nextKid: next?.kid, previous: [] }, 1, current.createdAt) },
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
            Item: { ...keys.signingKeyState(change.alg), ...stateAttrs(change.alg, change.state, change.expectedVersion + 1, at) },
            ConditionExpression: '#version = :v',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':v': change.expectedVersion },
          },
        },
        ...change.put.map(putKey),
        ...change.update.map((u): TxItem => {
          // `status` and `ttl` are DynamoDB reserved words.
          const retire = u.status === 'previous';
          return {
            Update: {
              TableName: tableName,
              Key: keys.signingKey(u.kid),
              // A key made current again (kms-sign: the configured key switched back) loses its TTL.
              UpdateExpression: retire ? 'SET #status = :s, retired_at = :at, #ttl = :ttl' : 'SET #status = :s, activated_at = :at REMOVE #ttl',
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

function stateAttrs(alg: AsymmetricAlg, s: Omit<KeyStateRecord, 'version' | 'alg'>, version: number, at: string) {
  return {
    type: 'SigningKeyState',
    schema_version: 1,
    alg,
    current_kid: s.currentKid,
    next_kid: s.nextKid,
    previous: s.previous.map((p) => ({ kid: p.kid, retired_at: p.retiredAt, expires_at: p.expiresAt })),
    version,
    updated_at: at,
  };
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
    if (e.name === 'TransactionCanceledException' && reasons.some((r) => r === 'ConditionalCheckFailed' || r === 'TransactionConflict')) return false;
    return translateError(err);
  }
}

function toState(item: Record<string, unknown>): KeyStateRecord | undefined {
  if (!isAsymmetricAlg(item.alg) || typeof item.current_kid !== 'string' || typeof item.version !== 'number') return undefined;
  const previous = Array.isArray(item.previous) ? (item.previous as Record<string, unknown>[]) : [];
  return {
    alg: item.alg,
    currentKid: item.current_kid,
    nextKid: typeof item.next_kid === 'string' ? item.next_kid : undefined,
    previous: previous
      .filter((p) => typeof p.kid === 'string' && typeof p.expires_at === 'number')
      .map((p) => ({ kid: p.kid as string, retiredAt: String(p.retired_at), expiresAt: p.expires_at as number })),
    version: item.version,
  };
}

function toKey(item: Record<string, unknown>): SigningKeyRecord | undefined {
  if (!isAsymmetricAlg(item.alg) || typeof item.kid !== 'string' || typeof item.jwk !== 'object' || item.jwk === null) return undefined;
  const wrappedBy = item.wrapped_by === 'local' || item.wrapped_by === 'kms-sign' ? item.wrapped_by : 'kms';
  if (wrappedBy !== 'kms-sign' && typeof item.wrapped_private_key !== 'string') return undefined;
  const ttl = item[TABLE_KEYS.ttlAttribute];
  return {
    kid: item.kid,
    alg: item.alg,
    jwk: item.jwk as JWK,
    wrappedPrivateKey: typeof item.wrapped_private_key === 'string' ? item.wrapped_private_key : undefined,
    wrappedBy,
    kmsKeyId: typeof item.kms_key_id === 'string' ? item.kms_key_id : undefined,
    status: item.status as KeyStatus,
    createdAt: String(item.created_at),
    activatedAt: typeof item.activated_at === 'string' ? item.activated_at : undefined,
    retiredAt: typeof item.retired_at === 'string' ? item.retired_at : undefined,
    ttl: typeof ttl === 'number' ? ttl : undefined,
  };
}
