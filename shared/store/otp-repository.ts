import { DeleteCommand, type DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../errors.ts';
import type { SecretBox } from '../keys/key-store.ts';
import { base32Decode, base32Encode, generateTotpSecret } from '../users/totp.ts';
import { entity } from './entity.ts';
import { getItem } from './read-items.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';

/** A user's TOTP authenticator as the `otp` grant checks it. */
export interface OtpAuthenticator {
  /** The shared secret, opened. Never logged, never returned after enrolment. */
  secret: Buffer;
  /** The stored sealed value: `accept` and `recordFailure` are conditional on it (same enrolment). */
  sealed: string;
  /** The last time step accepted (-1: none yet). */
  lastStep: number;
  /** Consecutive failed codes since the last success or enrolment. */
  failures: number;
  /** NIST SP 800-63B §5.2.2: `failures` reached the limit; only a new enrolment clears it. */
  disabled: boolean;
}

/**
 * The user's TOTP authenticator (API.md §7.3, §7.5), one item at `USER#{id}` / `OTP` in the user's
 * partition (so deleting the user removes it): `secret_sealed` (the base32 secret sealed with the
 * SecretBox, like client secrets), `last_step` (RFC 6238 §5.2: the step of the last accepted
 * code), `failures` (its own consecutive failures), `created_at`.
 */
export interface OtpRepository {
  /**
   * Enrols (or re-enrols) the user: a new secret, `last_step` and `failures` reset, so a disabled
   * authenticator works again. Returns the secret in base32, the only time it is ever shown.
   * 404 when the user does not exist (checked in the same transaction as the write).
   */
  enroll(userId: string): Promise<string>;
  /** Deletes the authenticator; false when there was none. */
  remove(userId: string): Promise<boolean>;
  find(userId: string): Promise<OtpAuthenticator | undefined>;
  /**
   * Accepts the code of `step` by ONE conditional write: only if `step` is later than the last
   * accepted one, the authenticator is not disabled and still the enrolment that was checked.
   * Of several requests with one code (or with codes of older steps), one wins; false for the rest.
   * A success resets the failure count.
   */
  accept(userId: string, sealed: string, step: number): Promise<boolean>;
  /** Counts a failed code (atomic ADD, no lost count) against that enrolment; returns the new count. */
  recordFailure(userId: string, sealed: string): Promise<number | undefined>;
}

export interface OtpSettings {
  /** NIST SP 800-63B §5.2.2: at most 100 consecutive failures, then the authenticator is disabled. */
  maxFailures: number;
}

export function otpRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  secretBox: SecretBox,
  settings: OtpSettings,
): OtpRepository {
  const stale = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';
  return {
    async enroll(userId) {
      const secret = base32Encode(generateTotpSecret());
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: tableName,
                  Key: keys.user(userId),
                  ConditionExpression: 'attribute_exists(PK)',
                },
              },
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...keys.userOtp(userId),
                    ...entity('UserOtp'),
                    user_id: userId,
                    secret_sealed: await secretBox.seal(secret),
                    last_step: -1,
                    failures: 0,
                    created_at: now().toISOString(),
                  },
                },
              },
            ],
          }),
        );
      } catch (err) {
        translateError(err, () => notFound('No user with this id.'));
      }
      return secret;
    },

    async remove(userId) {
      try {
        const out = await db.send(new DeleteCommand({ TableName: tableName, Key: keys.userOtp(userId), ReturnValues: 'ALL_OLD' }));
        return out.Attributes !== undefined;
      } catch (err) {
        return translateError(err);
      }
    },

    async find(userId) {
      const item = await getItem(db, tableName, keys.userOtp(userId), now());
      if (!item) return undefined;
      const sealed = item.secret_sealed as string;
      const secret = base32Decode(await secretBox.open(sealed));
      if (!secret) return undefined;
      const failures = Number(item.failures ?? 0);
      return { secret, sealed, lastStep: Number(item.last_step ?? -1), failures, disabled: failures >= settings.maxFailures };
    },

    async accept(userId, sealed, step) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userOtp(userId),
            UpdateExpression: 'SET last_step = :step, failures = :zero, last_used_at = :now',
            ConditionExpression: 'secret_sealed = :sealed AND last_step < :step AND failures < :max',
            ExpressionAttributeValues: {
              ':step': step,
              ':zero': 0,
              ':now': now().toISOString(),
              ':sealed': sealed,
              ':max': settings.maxFailures,
            },
          }),
        );
        return true;
      } catch (err) {
        if (stale(err)) return false;
        return translateError(err);
      }
    },

    async recordFailure(userId, sealed) {
      try {
        const out = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userOtp(userId),
            UpdateExpression: 'SET failures = if_not_exists(failures, :zero) + :one',
            // A failure against a secret that was replaced meanwhile does not count on the new one.
            ConditionExpression: 'secret_sealed = :sealed',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':sealed': sealed },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(out.Attributes?.failures);
      } catch (err) {
        if (stale(err)) return undefined;
        return translateError(err);
      }
    },
  };
}
