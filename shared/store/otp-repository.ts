import { DeleteCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../errors.ts';
import type { SecretBox } from '../keys/key-store.ts';
import { base32Encode, generateTotpSecret } from '../users/totp.ts';
import { entity } from './entity.ts';
import { type OtpChecks, type OtpSettings, otpChecks } from './otp-checks.ts';
import { keys } from './table-keys.ts';
import { translateError } from './translate-error.ts';

export interface OtpRepository extends OtpChecks {
  /**
   * Enrols (or re-enrols) the user: a new secret, `last_step` and `failures` reset, so a disabled
   * authenticator works again. Returns the secret in base32, the only time it is ever shown.
   * 404 when the user does not exist (checked in the same transaction as the write).
   */
  enroll(userId: string): Promise<string>;
  /** Deletes the authenticator; false when there was none. */
  remove(userId: string): Promise<boolean>;
}

/**
 * The user's TOTP authenticator (API.md §7.3, §7.5), one item at `USER#{id}` / `OTP` in the user's
 * partition (so deleting the user removes it): `secret_sealed` (the base32 secret sealed with the
 * SecretBox, like client secrets), `last_step` (RFC 6238 §5.2: the step of the last accepted
 * code), `failures` (its own consecutive failures), `created_at`.
 */
export function otpRepository(
  db: DynamoDBDocumentClient,
  tableName: string,
  now: () => Date,
  secretBox: SecretBox,
  settings: OtpSettings,
): OtpRepository {
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

    ...otpChecks(db, tableName, now, secretBox, settings),
  };
}
