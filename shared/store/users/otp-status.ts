import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TOTP_PERIOD_SECONDS } from '../../crypto/totp.ts';
import { getItem } from '../core/reads/read-items.ts';
import { keys } from '../core/table-keys.ts';
import type { OtpSettings } from './otp-checks.ts';

/** What the management API shows of a TOTP authenticator: never its secret. */
export interface OtpStatus {
  created_at: string | null;
  /** The last accepted code's time; null when no code was accepted yet. */
  last_used_at: string | null;
  /** NIST SP 800-63B §5.2.2: too many consecutive failures; only a new enrolment clears it. */
  disabled: boolean;
}

/** The user's TOTP authenticator as a list shows it (otp-repository.ts describes the item), or undefined. */
export type OtpStatusRead = (userId: string) => Promise<OtpStatus | undefined>;

/**
 * Reads the authenticator item without opening its sealed secret (no KMS call for a listing).
 * `last_used_at` is written by each accepted code (otp-checks.ts `accept`); an enrolment confirmed
 * with a code stores only that code's step, whose start time stands for it then (RFC 6238 §4.2:
 * step × 30 s from the epoch).
 */
export function otpStatusRead(db: DynamoDBDocumentClient, tableName: string, now: () => Date, settings: OtpSettings): OtpStatusRead {
  return async (userId) => {
    const item = await getItem(db, tableName, keys.userOtp(userId), now());
    if (!item) return undefined;
    const step = Number(item.last_step ?? -1);
    const lastUsed =
      typeof item.last_used_at === 'string'
        ? item.last_used_at
        : step >= 0
          ? new Date(step * TOTP_PERIOD_SECONDS * 1000).toISOString()
          : null;
    return {
      created_at: typeof item.created_at === 'string' ? item.created_at : null,
      last_used_at: lastUsed,
      disabled: Number(item.failures ?? 0) >= settings.maxFailures,
    };
  };
}
