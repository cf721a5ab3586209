import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { base32Encode, generateTotpSecret } from '../../crypto/totp.ts';
import { notFound } from '../../errors.ts';
import type { FoldedEvent } from '../../ports/event-log.ts';
import type { SecretBox } from '../../ports/secret-box.ts';
import { entity } from '../core/entity.ts';
import { keys } from '../core/table-keys.ts';
import { translateError } from '../core/translate-error.ts';
import { eventPuts } from '../events/event-items.ts';
import { takePendingEvent } from '../events/pending-event.ts';
import { type OtpChecks, type OtpSettings, otpChecks } from './otp-checks.ts';

/** How an enrolment came about, kept on the authenticator. */
export interface NewOtpEnrolment {
  /** Who set it up (the user's own id: through its own token or its enrolment ticket). */
  enrolledBy?: string;
  /** A secret the user already confirmed with a code (base32); default a new random one. */
  secret?: string;
  /** The step of that confirming code: it cannot be used again (RFC 6238 §5.2). */
  lastStep?: number;
}

export interface OtpRepository extends OtpChecks {
  /**
   * Enrols (or re-enrols) the user: a new secret, `last_step` and `failures` reset, so a disabled
   * authenticator works again. Returns the secret in base32, the only time it is ever shown.
   * 404 when the user does not exist (checked in the same transaction as the write). `events`
   * (`authenticator.enrolled`) land in that transaction.
   */
  enroll(userId: string, enrolment?: NewOtpEnrolment, events?: readonly FoldedEvent[]): Promise<string>;
  /** Deletes the authenticator; false when there was none. `events` land with the deletion (none when nothing was deleted). */
  remove(userId: string, events?: readonly FoldedEvent[]): Promise<boolean>;
}

/**
 * The user's TOTP authenticator (docs/contract.md §7.3, §7.5), one item at `USER#{id}` / `OTP` in the user's
 * partition (so deleting the user removes it): `secret_sealed` (the base32 secret sealed with the
 * SecretBox, like client secrets), `last_step` (RFC 6238 §5.2: the step of the last accepted
 * code), `failures` (its own consecutive failures), `created_at`, `enrolled_by` (absent on
 * authenticators enrolled before it was kept: maybe by an administrator, docs/users.md "TOTP").
 */
export function otpRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  secretBox: SecretBox,
  settings: OtpSettings,
): OtpRepository {
  /**
   * The user's `otp_enrolled`, set in the transaction that writes or deletes the authenticator (on
   * condition that the user exists): a password login reads it from the user item to know whether
   * to ask for a code (UserRecord). Not a versioned change: no field a PATCH merges is touched.
   */
  const userOtpFlag = (userId: string, enrolled: boolean) => ({
    Update: {
      TableName: tableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET otp_enrolled = :enrolled',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':enrolled': enrolled },
    },
  });
  /**
   * Sends the transaction with the flow's `events` and a management request's pending event
   * (pending-event.ts) after its own items, so they land if and only if it does, and the
   * cancellation reasons of its own items keep their indexes.
   */
  const send = async (items: readonly Record<string, unknown>[], events: readonly FoldedEvent[] = []) => {
    const puts = items.flatMap((i) => ('Put' in i ? [(i.Put as { Item: Record<string, unknown> }).Item] : []));
    const pending = takePendingEvent(puts);
    const all = pending ? [...events, pending.event] : events;
    // biome-ignore lint/suspicious/noExplicitAny: the items are the SDK's TransactWriteItem shapes built above.
    await db.send(new TransactWriteCommand({ TransactItems: [...(items as any[]), ...eventPuts(tableName, all)] }));
    pending?.committed();
  };
  return {
    async enroll(userId, enrolment = {}, events) {
      const secret = enrolment.secret ?? base32Encode(generateTotpSecret());
      try {
        await send(
          [
            userOtpFlag(userId, true),
            {
              Put: {
                TableName: tableName,
                Item: {
                  ...keys.userOtp(userId),
                  ...entity('UserOtp'),
                  user_id: userId,
                  secret_sealed: await secretBox.seal(secret),
                  last_step: enrolment.lastStep ?? -1,
                  failures: 0,
                  created_at: now().toISOString(),
                  ...(enrolment.enrolledBy !== undefined ? { enrolled_by: enrolment.enrolledBy } : {}),
                },
              },
            },
          ],
          events,
        );
      } catch (err) {
        translateError(err, () => notFound('No user with this id.'));
      }
      return secret;
    },

    async remove(userId, events) {
      try {
        await send(
          [
            { Delete: { TableName: tableName, Key: keys.userOtp(userId), ConditionExpression: 'attribute_exists(PK)' } },
            userOtpFlag(userId, false),
          ],
          events,
        );
        return true;
      } catch (err) {
        const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
        if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
        return translateError(err);
      }
    },

    ...otpChecks(db, tableName, now, secretBox, settings),
  };
}
