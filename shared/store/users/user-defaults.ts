import { newAuditFields } from '../../records/common.ts';
import type { NewUser, UserRecord } from '../../records/user-record.ts';

/**
 * The stored record of a new user. Defaults (docs/contract.md §6 and what Auth0 users know): not verified,
 * not blocked, never logged in, empty metadata, no links yet.
 */
export function newUserRecord(id: string, input: NewUser, actor: string, at: string): UserRecord {
  const { id: _id, email_verified, phone_verified, user_metadata, app_metadata, blocked, password_hash, ...profile } = input;
  return {
    ...profile,
    id,
    tenant_id: input.tenant_id,
    email_verified: email_verified ?? false,
    phone_verified: phone_verified ?? false,
    user_metadata: user_metadata ?? {},
    app_metadata: app_metadata ?? [],
    blocked: blocked ?? false,
    last_login: null,
    logins_count: 0,
    aggregations: { roles: 0, groups: 0, permissions: 0 },
    ...(password_hash !== undefined ? { password_hash } : {}),
    otp_enrolled: false,
    version: 1,
    ...newAuditFields(actor, at),
  };
}
