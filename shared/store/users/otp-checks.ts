import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { base32Decode } from '../../crypto/totp.ts';
import type { SecretBox } from '../../ports/secret-box.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';

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

export interface OtpSettings {
  /** NIST SP 800-63B §5.2.2: at most 100 consecutive failures, then the authenticator is disabled. */
  maxFailures: number;
}

/** What the `otp` grant and the login page do with an authenticator (otp-repository.ts enrols and removes it). */
export interface OtpChecks {
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

/**
 * The checks of a user's TOTP authenticator, apart from the repository's enrolment and removal:
 * the OAuth functions bundle only these (docs/benchmarks.md "Token function bundle"). The item is
 * described on `otpRepository`.
 */
export function otpChecks(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  secretBox: SecretBox,
  settings: OtpSettings,
): OtpChecks {
  const stale = (err: unknown) => (err as { name?: string }).name === 'ConditionalCheckFailedException';
  return {
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
