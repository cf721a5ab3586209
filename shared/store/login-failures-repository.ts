import { randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entity } from './entity.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';

export interface LockoutSettings {
  /** Consecutive failures after which attempts are refused (API.md §7.3: 10). */
  lockoutFailures: number;
  /** How long after the last counted attempt they are refused (API.md §7.3: 15 minutes). */
  lockoutSeconds: number;
}

export type AttemptAdmission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/**
 * Consecutive failed password and OTP checks per user (API.md §7.3), one item at `USER#{id}` /
 * `LOGIN_FAILURES` (in the user's partition: deleting the user removes it): `failures`,
 * `last_attempt_at` (epoch ms).
 *
 * An attempt is counted BEFORE its answer is decided, by one conditional write that only passes
 * while fewer than `lockoutFailures` attempts are counted or the last one is older than the
 * lockout: so of any number of parallel attempts at most `lockoutFailures` learn whether their
 * secret was right, and no count is lost (the increment is atomic). A success deletes the item (the count starts again); a
 * failure needs no second write. Once locked, every attempt is refused until `lockoutSeconds`
 * after the last counted one, right secret or not; after that each new failure locks again,
 * until a success.
 */
export interface LoginFailuresRepository {
  /** Counts an attempt of this user, or refuses it with the seconds until the lockout ends. */
  admit(userId: string): Promise<AttemptAdmission>;
  /**
   * The same DynamoDB work for a login that names no user (a conditional write of an item that
   * never exists, so nothing is written): an unknown login is not told apart by its answer time.
   */
  admitUnknown(): Promise<void>;
  /** A successful check: the consecutive count starts again. */
  reset(userId: string): Promise<void>;
}

export function loginFailuresRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  settings: LockoutSettings,
): LoginFailuresRepository {
  const lockoutMs = settings.lockoutSeconds * 1000;
  const count = (userId: string, nowMs: number, mustExist: boolean) =>
    db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.userLoginFailures(userId),
        UpdateExpression:
          'SET failures = if_not_exists(failures, :zero) + :one, last_attempt_at = :now, user_id = :user, #type = :type, schema_version = :version',
        ConditionExpression: `${mustExist ? 'attribute_exists(PK) AND ' : ''}(attribute_not_exists(failures) OR failures < :max OR last_attempt_at <= :unlocked)`,
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':now': nowMs,
          ':user': userId,
          ':type': entity('UserLoginFailures').type,
          ':version': entity('UserLoginFailures').schema_version,
          ':max': settings.lockoutFailures,
          ':unlocked': nowMs - lockoutMs,
        },
        // The refused attempt learns when the lockout ends without a read of its own.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );

  return {
    async admit(userId) {
      const nowMs = now().getTime();
      try {
        await count(userId, nowMs, false);
        return { admitted: true };
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') return translateError(err);
        const last = Number((err as { Item?: { last_attempt_at?: { N?: string } } }).Item?.last_attempt_at?.N ?? nowMs);
        return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((last + lockoutMs - nowMs) / 1000)) };
      }
    },

    async admitUnknown() {
      try {
        await count(randomUUID(), now().getTime(), true);
      } catch (err) {
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') translateError(err);
      }
    },

    async reset(userId) {
      try {
        await db.send(new DeleteCommand({ TableName: tableName, Key: keys.userLoginFailures(userId) }));
      } catch (err) {
        translateError(err);
      }
    },
  };
}
