import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserRecord } from '../../records/user-record.ts';
import { entity, toRecord } from '../core/entity.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { loginMarker } from './login-marker.ts';

export interface LockoutSettings {
  /** Consecutive failures after which attempts are refused (docs/contract.md §7.3: 10). */
  lockoutFailures: number;
  /** How long after the last counted attempt they are refused (docs/contract.md §7.3: 15 minutes). */
  lockoutSeconds: number;
}

/**
 * An admitted attempt carries the user as the counting write left it (none for an unknown login),
 * and what the count says of a lockout (docs/events.md "Recording"): `locksIfFails`, this attempt
 * was the last one the lockout lets through (a failure starts a lockout: `lockout.started`);
 * `liftsLockout`, the count before it had locked the user and its lockout ran out (a success clears
 * that count: `lockout.lifted`).
 */
export type AttemptAdmission =
  | { admitted: true; user: UserRecord | undefined; locksIfFails: boolean; liftsLockout: boolean }
  /** `tenantId`: the refused user's tenant (none for a login that names no user). */
  | { admitted: false; retryAfterSeconds: number; tenantId?: string | undefined };

/**
 * Consecutive failed password and OTP checks per user (docs/contract.md §7.3), kept ON the user's item
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
 *
 * A login that names no user is counted and locked the same way (docs/users.md "Brute force"), on
 * an item of its own keyed by the SHA-256 of the marker its lookup read
 * (`keys.unknownLoginFailures`): the identifier normalised as the lookup normalises it, in the
 * tenant. So its answers (400, then 429 with `Retry-After`) do not tell it from a user's. That
 * count never touches a user: a spelling the lookup maps to a user counts on the user's item,
 * any other spelling is another login; and a user created later under that identifier starts
 * with its own count, on its own item. The item expires UNKNOWN_LOGIN_KEPT_SECONDS after its last
 * counted attempt, as no success ever clears it.
 */
export interface LoginFailuresRepository {
  /**
   * Counts an attempt of this user (its id) and returns the user, or refuses it with the seconds
   * until the lockout ends. A login that names no user (`UnknownLogin`) is counted, and refused,
   * by its normalised identifier with the same single conditional write; it is admitted without
   * a user. A user id with no item (deleted meanwhile) is admitted without a user, uncounted.
   */
  admit(who: string | UnknownLogin): Promise<AttemptAdmission>;
  /** The count starts again (a self-service password change whose old password was right). */
  reset(userId: string): Promise<void>;
  /**
   * A right password at the limit, with a second factor to come (the hosted login's password
   * step): the count goes back to one below the limit, so the second factor gets exactly one
   * attempt. Without this the password's own counted attempt would refuse the second step, and a
   * user with a second factor who once reached the limit could never sign in again. One attempt,
   * as after a lockout runs out: a wrong code locks again.
   */
  leaveOneAttempt(userId: string): Promise<void>;
}

/** A login, as sent, that names no user in the tenant. */
export interface UnknownLogin {
  tenantId: string;
  login: string;
}

/**
 * How long the count of a login that names no user is kept after its last counted attempt. A
 * user's count is kept until a success; this one has none, so it is bounded: after a day without
 * attempts it starts again, as an active user's count does after its owner signs in.
 */
export const UNKNOWN_LOGIN_KEPT_SECONDS = 86_400;

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
  const COUNT = 'SET login_failures = if_not_exists(login_failures, :zero) + :one, login_attempt_at = :now';
  const BELOW_LIMIT = '(attribute_not_exists(login_failures) OR login_failures < :max OR login_attempt_at <= :unlocked)';
  /** The count's item and what the write sets there: the user's item, or the unknown login's own. */
  const counted = (who: string | UnknownLogin, nowMs: number) =>
    typeof who === 'string'
      ? { Key: keys.user(who), UpdateExpression: COUNT, ConditionExpression: `attribute_exists(PK) AND ${BELOW_LIMIT}`, values: {} }
      : {
          Key: keys.unknownLoginFailures(secretHash(loginMarker(who.tenantId, who.login).PK)),
          UpdateExpression: `${COUNT}, #type = :type, schema_version = :sv, #ttl = :ttl`,
          ConditionExpression: BELOW_LIMIT,
          ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
          values: {
            ':type': entity('UnknownLoginFailures').type,
            ':sv': entity('UnknownLoginFailures').schema_version,
            ':ttl': Math.floor(nowMs / 1000) + UNKNOWN_LOGIN_KEPT_SECONDS,
          },
        };

  return {
    async admit(who) {
      const nowMs = now().getTime();
      const { values, ...write } = counted(who, nowMs);
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            ...write,
            ExpressionAttributeValues: {
              ...values,
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
        const count = Number(Attributes?.login_failures ?? 0);
        return {
          admitted: true,
          user: Attributes?.type === 'User' ? toRecord<UserRecord>(Attributes) : undefined,
          locksIfFails: count >= settings.lockoutFailures,
          liftsLockout: count - 1 >= settings.lockoutFailures,
        };
      } catch (err) {
        if (!failedCondition(err)) return translateError(err);
        const old = (err as { Item?: { login_attempt_at?: { N?: string }; tenant_id?: { S?: string } } }).Item;
        // No item: no such user (nothing was written). An item: the lockout refused the attempt.
        if (!old) return { admitted: true, user: undefined, locksIfFails: false, liftsLockout: false };
        const last = Number(old.login_attempt_at?.N ?? nowMs);
        return {
          admitted: false,
          retryAfterSeconds: Math.max(1, Math.ceil((last + lockoutMs - nowMs) / 1000)),
          tenantId: old.tenant_id?.S,
        };
      }
    },

    async leaveOneAttempt(userId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET login_failures = :left',
            ConditionExpression: 'attribute_exists(PK) AND login_failures >= :max',
            ExpressionAttributeValues: { ':left': settings.lockoutFailures - 1, ':max': settings.lockoutFailures },
          }),
        );
      } catch (err) {
        // Below the limit already (another step's success cleared it), or the user is gone.
        if (!failedCondition(err)) translateError(err);
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
