import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AppError, conflict, notFound } from '../../errors.ts';
import type { FoldedEvent } from '../../ports/event-log.ts';
import { MAX_PASSKEYS_PER_USER, type PasskeyRecord } from '../../records/passkey-record.ts';
import { commitPlan } from '../core/commit-plan.ts';
import { entity, toRecord } from '../core/entity.ts';
import { and, equals, exists, notExists } from '../core/expression.ts';
import { queryPrefix } from '../core/reads/query-all.ts';
import { getItem } from '../core/reads/read-items.ts';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { uuidv7 } from '../core/uuidv7.ts';
import { deleteItem, putItem, updateItem } from '../core/writes.ts';
import { eventPuts } from '../events/event-items.ts';
import { CLEAR_LOGIN_FAILURES } from './login-failures-repository.ts';

export interface NewPasskey extends Omit<PasskeyRecord, 'id' | 'created_at' | 'last_used_at'> {}

export interface PasskeysRepository {
  /** The user's passkeys, oldest first (one consistent Query of the user's partition, SK begins_with PASSKEY#). */
  list(userId: string): Promise<PasskeyRecord[]>;
  /** The user's passkey with this credential id (consistent GetItem), or undefined. */
  findByCredential(userId: string, credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Adds one: 404 (notFound) when the user is gone, 409 (conflict) at MAX_PASSKEYS_PER_USER or a credential id the
   *  user already has. One transaction with a condition on the user item (its `passkeys_count` counter).
   *  `events` are made from the new record (its id is made here) and land in that transaction. */
  add(passkey: NewPasskey, events?: (record: PasskeyRecord) => readonly FoldedEvent[]): Promise<PasskeyRecord>;
  /** Removes one by its id (the authenticator id); false when the user has none with that id. `events` land
   *  in the removal's transaction (none when nothing was removed). */
  remove(userId: string, passkeyId: string, events?: readonly FoldedEvent[]): Promise<boolean>;
  /** A passkey sign-in, recorded in ONE transaction: the user item as UserLoginWrites records a login
   *  (last_login, logins_count + 1, version + 1, the lockout count cleared) AND the passkey's counter and
   *  last_used_at, on condition that the passkey still exists with the counter that was read (a race or a
   *  removed passkey: false, nothing written). `events` (docs/events.md "Recording") land in the same
   *  transaction: iff the login does. */
  recordLogin(input: {
    userId: string;
    at: Date;
    passkey: PasskeyRecord;
    counter: number;
    events?: readonly FoldedEvent[];
  }): Promise<boolean>;
  // A passkey as the second factor after a password uses recordLogin too (the rehash, if due, was stored at the
  // password step: BrowserDeps.storeRehash), so the counter and the login are always one write.
}

/**
 * The sort key's part of a credential id: its SHA-256 (base64url). Not a secret (the credential id
 * travels in every assertion); hashed so any credential id the browser sends (WebAuthn §5.8.3
 * allows up to 1023 bytes) fits a sort key at a fixed 43 characters.
 */
export const credentialIdHash = (credentialId: string): string => createHash('sha256').update(credentialId).digest('base64url');

/**
 * Attempts of an add or a remove that lost a transaction race on the user item (its
 * `passkeys_count`): every round has a winner, so this covers 25 parallel adds of one user (the
 * test's race) with room to spare.
 */
const COUNT_ATTEMPTS = 30;

/** Marks the add's user-item write as failed: whether the user is gone or full is read after. */
class UserRefused extends AppError {
  constructor() {
    super(409, 'conflict', 'The user refused the passkey.');
  }
}

const passkeyItem = (record: PasskeyRecord) => ({
  ...keys.userPasskey(record.user_id, credentialIdHash(record.credential_id)),
  ...entity('UserPasskey'),
  ...record,
});

/**
 * The passkeys of a user (docs/passkeys.md), each an item `USER#{u}` / `PASSKEY#{sha256(credential id)}`
 * in the user's partition. The user item's `passkeys_count` moves in the same transaction as every
 * add and remove: it caps the count under concurrent adds and makes an add require the user (an add
 * racing the user's delete either lands first and is swept by user-delete.ts, or fails with 404).
 * Like `otp_enrolled` it never reaches a caller (USER_STORAGE_ONLY) and no PATCH names it.
 */
export function passkeysRepository(db: DynamoDBDocumentClient, tableName: string, now: () => Date): PasskeysRepository {
  const passkeyKey = (userId: string, credentialId: string) => keys.userPasskey(userId, credentialIdHash(credentialId));

  const list = async (userId: string) => {
    const items = await queryPrefix(db, tableName, keys.userPartition(userId), keys.passkeyPrefix);
    // The sort key is a hash: UUIDv7 ids give the creation order.
    return items.map((i) => toRecord<PasskeyRecord>(i)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  return {
    list,

    async findByCredential(userId, credentialId) {
      const item = await getItem(db, tableName, passkeyKey(userId, credentialId), now());
      return item ? toRecord<PasskeyRecord>(item) : undefined;
    },

    async add(passkey, events) {
      const record: PasskeyRecord = { ...passkey, id: uuidv7(), created_at: now().toISOString() };
      const folded = events?.(record);
      const count = updateItem(keys.user(passkey.user_id), {
        add: [['passkeys_count', 1]],
        condition: and(
          exists,
          (x) => `attribute_not_exists(${x.name('passkeys_count')}) OR ${x.name('passkeys_count')} < ${x.value(MAX_PASSKEYS_PER_USER)}`,
        ),
        onFail: () => new UserRefused(),
      });
      const put = putItem(passkeyItem(record), {
        condition: notExists,
        onFail: () => conflict('This passkey is already registered to the user.'),
      });
      try {
        // The passkey first: when both fail, the 409 names the duplicate (commit-plan.ts reports the first failed write).
        await withRetries(() => commitPlan(db, tableName, [[put, count]], { events: folded }), { attempts: COUNT_ATTEMPTS });
      } catch (err) {
        if (!(err instanceof UserRefused)) throw err;
        const user = await getItem(db, tableName, keys.user(passkey.user_id), now());
        if (!user) throw notFound('User not found.');
        throw conflict(`A user has at most ${MAX_PASSKEYS_PER_USER} passkeys.`);
      }
      return record;
    },

    async remove(userId, passkeyId, events) {
      return withRetries(
        async () => {
          const found = (await list(userId)).find((p) => p.id === passkeyId);
          if (!found) return false;
          // The user item is gone while its delete sweeps (user-delete.ts): then only the passkey goes.
          const user = await getItem(db, tableName, keys.user(userId), now());
          await commitPlan(
            db,
            tableName,
            [
              [
                deleteItem(passkeyKey(userId, found.credential_id), { condition: and(exists, equals('id', passkeyId)) }),
                ...(user ? [updateItem(keys.user(userId), { add: [['passkeys_count', -1]], condition: exists })] : []),
              ],
            ],
            { events },
          );
          return true;
        },
        { attempts: COUNT_ATTEMPTS },
      );
    },

    async recordLogin({ userId, at, passkey, counter, events }) {
      const when = at.toISOString();
      const command = new TransactWriteCommand({
        TransactItems: [
          {
            // The same write as user-login-writes.ts records for a password login (docs/contract.md §6, §7.3).
            Update: {
              TableName: tableName,
              Key: keys.user(userId),
              UpdateExpression: `SET last_login = :at, logins_count = if_not_exists(logins_count, :zero) + :one, version = if_not_exists(version, :zero) + :one ${CLEAR_LOGIN_FAILURES}`,
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':at': when, ':zero': 0, ':one': 1 },
            },
          },
          {
            // WebAuthn §6.1.1: the stored counter moves only from the value the verification compared against.
            Update: {
              TableName: tableName,
              Key: passkeyKey(userId, passkey.credential_id),
              UpdateExpression: 'SET #counter = :counter, last_used_at = :at',
              ConditionExpression: 'attribute_exists(PK) AND #id = :id AND #counter = :read',
              ExpressionAttributeNames: { '#counter': 'counter', '#id': 'id' },
              ExpressionAttributeValues: { ':counter': counter, ':at': when, ':id': passkey.id, ':read': passkey.counter },
            },
          },
          ...eventPuts(tableName, events),
        ],
      });
      return withRetries(async () => {
        try {
          await db.send(command);
          return true;
        } catch (err) {
          const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
          const reasons = (e.CancellationReasons ?? []).map((r) => r.Code);
          if (e.name === 'TransactionCanceledException' && reasons.includes('ConditionalCheckFailed')) return false;
          // Another transaction held an item (a refresh rotation checks the user item): re-run; a
          // rival that won meanwhile makes the re-run's condition fail.
          if (e.name === 'TransactionConflictException' || reasons.includes('TransactionConflict')) {
            throw new RetryableConflict(undefined, err);
          }
          return translateError(err);
        }
      });
    },
  };
}
