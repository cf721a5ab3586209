import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_TENANT_ID } from '#shared/records/tenant-record.ts';
import { type UserRecord, userMarkerValue } from '#shared/records/user-record.ts';
import type { Runtime } from '#shared/runtime.ts';
import { entity } from '#shared/store/core/entity.ts';
import { keys } from '#shared/store/core/table-keys.ts';
import { uuidv7 } from '#shared/store/core/uuidv7.ts';
import { loginMarkerAttributes } from '#shared/store/users/user-markers.ts';

/**
 * A user written straight into the table as the users repository stores it (`keys.user` item plus
 * its login markers, with the prefix of its password hash), for the token tests that need a user before the Users API is merged.
 */
export async function putUser(runtime: Runtime, fields: Partial<UserRecord> = {}): Promise<UserRecord> {
  const at = runtime.now().toISOString();
  const user: UserRecord = {
    id: uuidv7(),
    tenant_id: DEFAULT_TENANT_ID,
    email: `u-${uuidv7()}@example.com`,
    email_verified: true,
    phone_verified: false,
    user_metadata: {},
    app_metadata: [],
    blocked: false,
    last_login: null,
    logins_count: 0,
    aggregations: { roles: 0, groups: 0, permissions: 0 },
    created_at: at,
    updated_at: at,
    // As the repository creates users: no authenticator (otp-repository.ts sets it with one).
    otp_enrolled: false,
    version: 1,
    ...fields,
  } as UserRecord;
  const put = (item: Record<string, unknown>) => runtime.db.send(new PutCommand({ TableName: runtime.config.tableName, Item: item }));
  await put({ ...keys.user(user.id), ...entity('User'), GSI1PK: keys.collection(user.tenant_id, 'USERS'), GSI1SK: user.id, ...user });
  const markers = [
    ['USER_EMAIL', user.email && userMarkerValue('email', user.email)],
    ['USER_NAME', user.username && userMarkerValue('username', user.username)],
    ['USER_PHONE', user.phone_number && userMarkerValue('phone_number', user.phone_number)],
  ] as const;
  for (const [kind, value] of markers) {
    if (value) {
      const marker = { ...keys.marker(kind, user.tenant_id, value), ...entity('UniqueMarker'), target_id: user.id };
      await put({ ...marker, ...loginMarkerAttributes(user.password_hash) });
    }
  }
  return user;
}

/** Changes stored fields of a user (block, `tokens_revoked_at`, ...) as the users repository would. */
export async function updateUser(runtime: Runtime, user: UserRecord, fields: Partial<UserRecord>): Promise<UserRecord> {
  const next = { ...user, ...fields, version: user.version + 1 };
  await runtime.db.send(
    new PutCommand({
      TableName: runtime.config.tableName,
      Item: { ...keys.user(user.id), ...entity('User'), GSI1PK: keys.collection(user.tenant_id, 'USERS'), GSI1SK: user.id, ...next },
    }),
  );
  return next;
}
