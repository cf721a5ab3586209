import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FoldedEvent } from '../../ports/event-log.ts';
import type { UserLoginKind, UserRecord } from '../../records/user-record.ts';
import { RetryableConflict, withRetries } from '../core/retry.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { type SingleWrite, sendWithEvents } from '../events/send-with-events.ts';
import { CLEAR_LOGIN_FAILURES } from './login-failures-repository.ts';
import { loginHintWrite } from './user-markers.ts';

/** A fresh hash of the password just checked, to store in place of the one it was checked against. */
export interface Rehash {
  oldHash: string;
  newHash: string;
}

export interface LoginRecord {
  /** The user who logged in (its id; its identifiers name the login markers a rehash rewrites). */
  user: Pick<UserRecord, 'id' | 'tenant_id' | UserLoginKind>;
  at: Date;
  /**
   * A fresh hash to store instead of `oldHash` (its parameters rose, password-hash.ts
   * `needsRehash`). Stored only if the user's hash is still `oldHash`: a password changed
   * meanwhile is never overwritten by the old password's new hash.
   */
  rehash?: Rehash | undefined;
  /** The sign-in's security events (docs/events.md "Recording"): in the same write, so they land iff the login does. */
  events?: readonly FoldedEvent[] | undefined;
}

/**
 * What a successful password or OTP login writes on the User (docs/contract.md §6): `last_login` and
 * `logins_count` (refresh does not count), the lockout count cleared (docs/contract.md §7.3: the count is of
 * consecutive failures; login-failures-repository.ts), and the rehash when one is due, in ONE
 * UpdateItem (`logins_count` is an atomic counter: parallel logins all count). `version` is bumped, as every
 * change of the record bumps it, so a concurrent merge that read the old record retries instead
 * of writing back the old `last_login`. A user deleted meanwhile is left alone. The login's events
 * make it one TransactWriteItems instead (send-with-events.ts): still one call.
 */
export type UserLoginWrites = (login: LoginRecord) => Promise<void>;

const failedCondition = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

/**
 * Sends a single-item write, again while a transaction holds the item: DynamoDB refuses the write
 * with `TransactionConflictException` then (a refresh rotation checks the user item in its
 * transaction), and the SDK does not retry that error itself. A conflict that outlasts the retries
 * is a 409.
 */
const sendPastTransactions = (db: DynamoDBDocumentClient, write: SingleWrite, events?: readonly FoldedEvent[]) =>
  withRetries(async () => {
    try {
      return await sendWithEvents(db, write, events);
    } catch (err) {
      if ((err as { name?: string }).name === 'TransactionConflictException') throw new RetryableConflict(undefined, err);
      throw err;
    }
  });

export function userLoginWrites(db: DynamoDBDocumentClient, tableName: string): UserLoginWrites {
  const write = (login: LoginRecord, withRehash: boolean) =>
    sendPastTransactions(
      db,
      {
        Update: {
          TableName: tableName,
          Key: keys.user(login.user.id),
          UpdateExpression: `SET last_login = :at, logins_count = if_not_exists(logins_count, :zero) + :one, version = if_not_exists(version, :zero) + :one${withRehash ? ', password_hash = :new' : ''} ${CLEAR_LOGIN_FAILURES}`,
          ConditionExpression: `attribute_exists(PK)${withRehash ? ' AND password_hash = :old' : ''}`,
          ExpressionAttributeValues: {
            ':at': login.at.toISOString(),
            ':zero': 0,
            ':one': 1,
            ...(withRehash && login.rehash ? { ':new': login.rehash.newHash, ':old': login.rehash.oldHash } : {}),
          },
        },
      },
      login.events,
    );

  const writeLoginHint = loginHintWrite(db, tableName);
  return async (login) => {
    try {
      await write(login, login.rehash !== undefined);
    } catch (err) {
      if (!failedCondition(err)) return translateError(err);
      if (login.rehash === undefined) return; // the user is gone
      // The password changed since it was checked (or the user is gone): record the login only.
      try {
        await write(login, false);
      } catch (again) {
        if (!failedCondition(again)) translateError(again);
      }
      return;
    }
    // A new salt: the login markers get the new prefix (user-markers.ts).
    if (login.rehash) await writeLoginHint(login.user, login.rehash.newHash);
  };
}

/**
 * Stores a rehash on its own, without recording a login: the hosted login page's password step
 * when a code is asked next (login-page.ts). The password is known only in that request, while the
 * login is recorded by the code step, so waiting for the code would never rehash a user with an
 * authenticator. The same password under stronger parameters opens nothing new, so it may be
 * stored before the second factor. Only in place of the hash that was checked; a user deleted
 * meanwhile, or a password changed meanwhile, is left alone. Stored, it also goes on the login
 * markers (its salt is new).
 */
export type UserRehashWrite = (user: UserRecord, rehash: Rehash) => Promise<void>;

export function userRehashWrite(db: DynamoDBDocumentClient, tableName: string): UserRehashWrite {
  const writeLoginHint = loginHintWrite(db, tableName);
  return async (user, rehash) => {
    try {
      await sendPastTransactions(db, {
        Update: {
          TableName: tableName,
          Key: keys.user(user.id),
          UpdateExpression: 'SET password_hash = :new, version = if_not_exists(version, :zero) + :one',
          ConditionExpression: 'attribute_exists(PK) AND password_hash = :old',
          ExpressionAttributeValues: { ':new': rehash.newHash, ':old': rehash.oldHash, ':zero': 0, ':one': 1 },
        },
      });
    } catch (err) {
      if (!failedCondition(err)) translateError(err);
      return;
    }
    // A new salt: the login markers get the new prefix (user-markers.ts).
    await writeLoginHint(user, rehash.newHash);
  };
}
