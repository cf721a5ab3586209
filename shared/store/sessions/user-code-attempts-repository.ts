import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { entity } from '../core/entity.ts';
import { secretHash } from '../core/secret-hash.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { ttlOf } from '../core/ttl.ts';

export interface UserCodeAttemptLimits {
  /** Wrong user codes one source address may enter per window (RFC 8628 §5.1). */
  maxWrong: number;
  /** The window, in seconds. */
  windowSeconds: number;
}

/** RFC 8628 §5.1's attempt limit, as docs/browser-flows.md "Device flow" states it. */
export const USER_CODE_ATTEMPT_LIMITS: UserCodeAttemptLimits = { maxWrong: 5, windowSeconds: 600 };

export type UserCodeAdmission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/**
 * Wrong user codes per source address (RFC 8628 §5.1 "rate-limit user-code attempts"), one item
 * per address and fixed window: `USER_CODE_ATTEMPTS#{sha256(address)}` / `WINDOW#{n}`, `attempts`
 * and `ttl` (the address itself is not stored).
 *
 * An entry is counted BEFORE the code is looked up, by one conditional ADD that passes only while
 * fewer than `maxWrong` are counted: so parallel guesses cannot slip past the limit. A right code
 * gives its own count back (`refund`); it does not reset the count, or an attacker could mix in
 * codes of devices of their own to keep guessing.
 */
export interface UserCodeAttemptsRepository {
  admit(sourceAddress: string): Promise<UserCodeAdmission>;
  refund(sourceAddress: string): Promise<void>;
}

export function userCodeAttemptsRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  limits: UserCodeAttemptLimits = USER_CODE_ATTEMPT_LIMITS,
): UserCodeAttemptsRepository {
  const windowMs = limits.windowSeconds * 1000;
  const slot = (address: string) => {
    const at = now().getTime();
    const window = Math.floor(at / windowMs);
    const ends = (window + 1) * windowMs;
    return { key: keys.userCodeAttempts(secretHash(address), window), at, ends };
  };
  return {
    async admit(address) {
      const { key, at, ends } = slot(address);
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'ADD attempts :one SET #type = :type, schema_version = :version, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(attempts) OR attempts < :max',
            ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':one': 1,
              ':max': limits.maxWrong,
              ':type': entity('UserCodeAttempts').type,
              ':version': entity('UserCodeAttempts').schema_version,
              ':ttl': ttlOf(new Date(ends)),
            },
          }),
        );
        return { admitted: true };
      } catch (err) {
        if ((err as { name?: string }).name === 'ConditionalCheckFailedException') {
          return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((ends - at) / 1000)) };
        }
        return translateError(err);
      }
    },
    async refund(address) {
      const { key } = slot(address);
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'ADD attempts :minus',
            ConditionExpression: 'attempts > :zero',
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        );
      } catch (err) {
        // The window turned over between the two writes: nothing to give back.
        if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') translateError(err);
      }
    },
  };
}
