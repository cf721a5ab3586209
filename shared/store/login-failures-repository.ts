import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../records/user-record.ts';
import { toRecord } from './entity.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';

export interface LockoutSettings {
  /** Consecutive failures after which attempts are refused (API.md §7.3: 10). */
  lockoutFailures: number;
  /** How long after the last counted attempt they are refused (API.md §7.3: 15 minutes). */
  lockoutSeconds: number;
}

/** An admitted attempt carries the user as the counting write left it; none for an unknown id. */
export type AttemptAdmission = { admitted: true; user: UserRecord | undefined } | { admitted: false; retryAfterSeconds: number };

/**
 * Consecutive failed password and OTP checks per user (API.md §7.3), kept ON the user's item
 * (`USER#{id}` / `USER`): `login_failures` and `login_attempt_at` (epoch ms), never shown to a
 * caller (USER_STORAGE_ONLY). On the user item so that the counting write also is the login's
 * consistent read of the user (`ReturnValues: ALL_NEW`) and a success resets the count in the
 * write that records the login (user-login-writes.ts): three DynamoDB calls per password login
 * instead of five (docs/benchmarks.md "Password grant: what it waits for").
 *
 * An attempt is counted BEFORE its answer is decided, by one conditional write that only passes
 * while fewer than `lockoutFailures` attempts are counted or the last one is older than the
 * lockout: so of any number of parallel attempts at most `lockoutFailures` learn whether their
 * secret was right, and no count is lost (the increment is atomic). A failure needs no second
 * write. Once locked, every attempt is refused until `lockoutSeconds` after the last counted one,
 * right secret or not; after that each new failure locks again, until a success.
 *
 * The write touches only these two attributes: not `version`, so a merge of the user that runs at
 * the same time is neither refused nor able to write back an old count (merges write the fields
 * they change, versioned-update.ts).
 */
export interface LoginFailuresRepository {
  /**
   * Counts an attempt of this user and returns the user, or refuses it with the seconds until the
   * lockout ends. An unknown login (`undefined`) makes the same conditional write on an id that
   * never exists, which writes nothing: it is not told apart by its answer time, and is never refused.
   */
  admit(userId: string | undefined): Promise<AttemptAdmission>;
  /** The count starts again (a self-service password change whose old password was right). */
  reset(userId: string): Promise<void>;
}

/** The update expression that clears the count: a successful login's write carries it too. */
export const CLEAR_LOGIN_FAILURES = 'REMOVE login_failures, login_attempt_at';

export function loginFailuresRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  settings: LockoutSettings,
): LoginFailuresRepository {
  const lockoutMs = settings.lockoutSeconds * 1000;
  const failedCondition = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';

  return {
    async admit(userId) {
      const nowMs = now().getTime();
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId ?? randomUUID()),
            UpdateExpression: 'SET login_failures = if_not_exists(login_failures, :zero) + :one, login_attempt_at = :now',
            ConditionExpression:
              'attribute_exists(PK) AND (attribute_not_exists(login_failures) OR login_failures < :max OR login_attempt_at <= :unlocked)',
            ExpressionAttributeValues: {
              ':zero': 0,
              ':one': 1,
              ':now': nowMs,
              ':max': settings.lockoutFailures,
              ':unlocked': nowMs - lockoutMs,
            },
            // The user as this write left it: a strongly consistent read of it, for free.
            ReturnValues: 'ALL_NEW',
            // The refused attempt learns when the lockout ends without a read of its own.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { admitted: true, user: Attributes?.type === 'User' ? toRecord<UserRecord>(Attributes) : undefined };
      } catch (err) {
        if (!failedCondition(err)) return translateError(err);
        const old = (err as { Item?: { login_attempt_at?: { N?: string } } }).Item;
        // No item: no such user (nothing was written). An item: the lockout refused the attempt.
        if (!old) return { admitted: true, user: undefined };
        const last = Number(old.login_attempt_at?.N ?? nowMs);
        return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((last + lockoutMs - nowMs) / 1000)) };
      }
    },

    async reset(userId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: CLEAR_LOGIN_FAILURES,
            ConditionExpression: 'attribute_exists(PK)',
          }),
        );
      } catch (err) {
        if (!failedCondition(err)) translateError(err);
      }
    },
  };
}
